import { N8nHarness } from '../../harness/harness';
import { simulatorCredentialData } from '../../harness/simulator-credential';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { CREDENTIAL_READ } from '../../../nodes/shared/transport/credentialRead';
import type { Setup } from '../partner-leads-trigger/helpers';
import { setUp } from '../partner-leads-trigger/helpers';
import { created, quickTimings } from '../partner-leads-trigger/recovery-helpers';
import { pollingHost, portalLead } from '../partner-leads-polling-trigger/helpers';

/**
 * A published trigger lives as long as its activation, and so does n8n's context for it: the
 * credential as saved now is what its requests use, read again once the last read is
 * CREDENTIAL_READ.maxAgeMs old or at once when the service refuses it, never once per request
 * (each read is a database query and a decryption in n8n).
 */

/** n8n's clock moved on by `ms` from now (the service's too: it runs in this process). */
function clockAhead(ms: number): jest.SpyInstance {
	const realNow = Date.now.bind(Date);
	return jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ms);
}

/** The user creates a new key in the portal and saves it into the credential (same credential). */
function saveNewKey(sim: Simulator, harness: N8nHarness): void {
	const key = sim.control.createKey({ selfServe: sim.defaultKey.selfServe });
	harness.replaceCredential(
		simulatorCredentialData(sim, { clientId: key.clientId, clientSecret: key.clientSecret }),
	);
}

async function runCreates(setup: Setup, count: number, name: string): Promise<void> {
	for (let index = 0; index < count; index++) created(setup, `${name}${index}`);
	await setup.sim.control.waitForDeliveries(20_000);
	await setup.host.settle();
}

describe('the webhook trigger: the credential as saved now', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 60 * 60_000 });
	afterEach(() => jest.restoreAllMocks());

	it('its lead reads read the credential once for many runs, and again once the read is a minute old: a key saved meanwhile is used, no republish', async () => {
		setup = await setUp({ events: ['lead/create'], fetchFullLead: true });
		await setup.host.activate();
		const helper = setup.harness.credentialsHelper;
		const readsBefore = helper.decryptions;
		await runCreates(setup, 12, 'first');
		expect(setup.host.executions).toHaveLength(12);
		expect(helper.decryptions - readsBefore).toBeLessThanOrEqual(1);

		saveNewKey(setup.sim, setup.harness);
		const tokensBefore = setup.sim.control.stats().tokenRequests;
		clockAhead(CREDENTIAL_READ.maxAgeMs + 1_000);
		const readsAfterSave = helper.decryptions;
		await runCreates(setup, 12, 'second');
		expect(setup.host.executions).toHaveLength(24);
		expect(helper.decryptions - readsAfterSave).toBe(1);
		// one token for the new key, then shared by every request
		expect(setup.sim.control.stats().tokenRequests - tokensBefore).toBe(1);
	});

	it('the key revoked with runs waiting in flight: their refused lead reads read the credential again at once and run with the new key', async () => {
		setup = await setUp({ events: ['lead/create'], fetchFullLead: true });
		await setup.host.activate();
		// accepted, their lead reads stalled by the service
		setup.sim.control.setFaults('GET /leads/:id', { held: true });
		for (let index = 0; index < 3; index++) created(setup, `waiting${index}`);
		// answered; not settled: their runs wait on the stalled reads
		await setup.sim.control.waitForDeliveries(20_000);
		saveNewKey(setup.sim, setup.harness);
		setup.sim.control.revokeKey(setup.sim.defaultKey.clientId);
		setup.sim.control.expireTokens();
		const readsBefore = setup.harness.credentialsHelper.decryptions;
		setup.sim.control.setFaults('GET /leads/:id', {});
		await setup.host.settle();
		expect(setup.host.executions).toHaveLength(3);
		expect(setup.harness.credentialsHelper.decryptions - readsBefore).toBe(1);
	});
});

describe('the Polling Trigger: the credential as saved now', () => {
	let sim: Simulator;

	afterEach(async () => {
		jest.restoreAllMocks();
		await sim?.close();
	});

	it('a poll after the key was revoked and a new one saved uses the new one: polls share one n8n context for the whole activation', async () => {
		sim = await startSimulator({ seed: 7 });
		const harness = new N8nHarness(sim);
		const poller = pollingHost(harness);
		await poller.activate();
		const first = portalLead(sim, 'first');
		await poller.poll();
		expect(poller.events()).toEqual([`lead/create ${first.id}`]);

		saveNewKey(sim, harness);
		sim.control.revokeKey(sim.defaultKey.clientId);
		sim.control.expireTokens();
		const second = portalLead(sim, 'second');
		// refused at once, long before the last read is a minute old: read again, the poll goes on
		await poller.poll();
		expect(poller.events()).toEqual([`lead/create ${first.id}`, `lead/create ${second.id}`]);
	});
});
