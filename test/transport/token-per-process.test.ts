/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * One token request per n8n process while the token is valid (issue 34): executions that start
 * together read the credential before the first one's token is saved (n8n 2.x saves it after
 * two more trips to its database), and after an expiry they all renew at once. The credential
 * store here takes its time as n8n's database does (`storeLatencyMs`).
 */
import { sleep } from 'n8n-workflow';

import { N8nHarness, ownKey, simulatorCredentialData } from '../harness/harness';
import type { NodeRun } from '../harness/harness';
import { testCredential } from '../harness/credential-test';
import { startSimulator } from '../simulator';
import { tokenFor } from '../simulator/test-helpers';
import type { Simulator } from '../simulator/types';
import { movableClock } from '../support/movable-clock';

const schemaRequest = { method: 'GET', path: '/schema/lead', what: 'lead schema' };

/** n8n 2.41 on PostgreSQL under load: tens of milliseconds per trip. */
const STORE_LATENCY_MS = 60;

function probe(
	harness: N8nHarness,
	requests = 3,
	credential = harness.credential,
): Promise<NodeRun> {
	return harness.runNode({
		type: 'test.transportProbe',
		parameters: {},
		items: Array.from({ length: requests }, () => schemaRequest) as never,
		credential,
	});
}

/** `count` executions, each started `spacingMs` after the one before, as a queue hands them out. */
async function runsStartingTogether(
	harness: N8nHarness,
	count: number,
	spacingMs: number,
): Promise<NodeRun[]> {
	return await Promise.all(
		Array.from({ length: count }, async (_, index) => {
			await sleep(index * spacingMs);
			return await probe(harness);
		}),
	);
}

async function until(condition: () => boolean): Promise<void> {
	for (let waited = 0; !condition(); waited += 1) {
		if (waited > 10_000) throw new Error('gave up waiting');
		await sleep(1);
	}
}

/**
 * The race of issue 34: one execution, then 6 more the moment the issuer answered it. n8n
 * saves that token two database trips later; the 6 read the credential in one, so they find
 * the token the first one replaced (or none).
 */
async function runsAroundANewToken(harness: N8nHarness, sim: Simulator): Promise<NodeRun[]> {
	const issuedBefore = sim.control.stats().tokensIssued;
	const first = probe(harness);
	await until(() => sim.control.stats().tokensIssued > issuedBefore);
	const later = await runsStartingTogether(harness, 6, 0);
	return [await first, ...later];
}

function expectSucceeded(runs: NodeRun[]): void {
	for (const run of runs) {
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(3);
	}
}

/** runsAroundANewToken from fresh counts: all succeed on one token request; how many requests were refused. */
async function refusalsAroundANewToken(harness: N8nHarness, sim: Simulator): Promise<number> {
	sim.control.resetStats();
	expectSucceeded(await runsAroundANewToken(harness, sim));
	const stats = sim.control.stats();
	expect(stats.tokenRequests).toBe(1);
	return stats.statusesByRoute['GET /schema/lead']?.[sim.personality.authFailureStatus] ?? 0;
}

describe('token: one request per process while it is valid', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ tokenLifetimeSeconds: 3600 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => sim.control.reset());

	/** a key of its own per test: no token is held for it yet (tokens are per process and key) */
	function slowStoreHarness(overrides = {}): N8nHarness {
		const harness = new N8nHarness(sim, { ...ownKey(sim), ...overrides });
		harness.credentialsHelper.storeLatencyMs = STORE_LATENCY_MS;
		return harness;
	}

	it('12 executions starting within a few milliseconds of each other cost one token request', async () => {
		const harness = slowStoreHarness();
		expectSucceeded(await runsStartingTogether(harness, 12, 5));
		expect(sim.control.stats().tokenRequests).toBe(1);
		// n8n stored the one token; later executions read it and ask for nothing
		expectSucceeded(await runsStartingTogether(harness, 4, 0));
		expect(sim.control.stats().tokenRequests).toBe(1);
	});

	it("executions that read the credential after the first one's token was issued, before it was saved, ask for none", async () => {
		expect(await refusalsAroundANewToken(slowStoreHarness(), sim)).toBe(0);
	});

	it('after every token expired, executions renewing together cost one token request', async () => {
		const harness = slowStoreHarness();
		expectSucceeded([await probe(harness)]);
		sim.control.expireTokens();
		sim.control.resetStats();
		expectSucceeded(await runsStartingTogether(harness, 8, 3));
		expect(sim.control.stats().tokenRequests).toBe(1);
		sim.control.expireTokens();
		// each execution was refused once at most, with the token it had read
		expect(await refusalsAroundANewToken(harness, sim)).toBeLessThanOrEqual(7);
	});

	it('a token refused after another process renewed it: renewed here, not the one this process holds', async () => {
		const harness = slowStoreHarness();
		expectSucceeded([await probe(harness)]);
		// another worker got a token of its own and saved it with the credential
		const stored = harness.storedCredential()!;
		harness.replaceCredential({ ...stored, accessToken: await tokenFor(sim) });
		sim.control.expireTokens();
		sim.control.resetStats();
		expectSucceeded(await runsStartingTogether(harness, 4, 0));
		expect(sim.control.stats().tokenRequests).toBe(1);
	});

	it('each credential identity has its own token: another environment, another secret', async () => {
		const firstKey = ownKey(sim);
		const harness = slowStoreHarness(firstKey);
		const nonProduction = harness.saveCredential(
			'non-production',
			simulatorCredentialData(sim, { ...firstKey, environment: 'nonProduction' }),
		);
		const key = sim.control.createKey();
		const otherKey = harness.saveCredential(
			'other-key',
			simulatorCredentialData(sim, { clientId: key.clientId, clientSecret: key.clientSecret }),
		);
		const runs = await Promise.all([
			probe(harness),
			probe(harness, 3, nonProduction),
			probe(harness, 3, otherKey),
			probe(harness),
			probe(harness, 3, nonProduction),
			probe(harness, 3, otherKey),
		]);
		expectSucceeded(runs);
		expect(sim.control.stats().tokenRequests).toBe(3);
	});

	it('a credential edited to a wrong secret is not served the token the right one got', async () => {
		const harness = slowStoreHarness();
		expectSucceeded([await probe(harness)]);
		harness.replaceCredential(
			simulatorCredentialData(sim, { clientSecret: 'wrong-secret-value-123456' }),
		);
		const run = await probe(harness);
		expect(run.error?.message).toMatch(/rejected the 'Client ID' or 'Client Secret'/);
	});

	it('the Test button asks the issuer itself: a revoked key fails although this process holds a token', async () => {
		const key = sim.control.createKey();
		const values = simulatorCredentialData(sim, {
			clientId: key.clientId,
			clientSecret: key.clientSecret,
		});
		const harness = new N8nHarness(sim, values);
		expectSucceeded([await probe(harness)]);
		sim.control.revokeKey(key.clientId);
		const result = await testCredential(harness, values);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/revoked/);
	});
});

describe('token: renewal near expiry, once per process', () => {
	it('executions finding the token near expiry renew it once, before any request fails', async () => {
		// lifetime 100 s: renewal is due in its last 10 s
		const clock = movableClock();
		const sim = await startSimulator({ tokenLifetimeSeconds: 100 });
		try {
			const harness = new N8nHarness(sim);
			harness.credentialsHelper.storeLatencyMs = STORE_LATENCY_MS;
			expectSucceeded([await probe(harness)]);
			const renewalDueAt = Number(harness.storedCredential()?.renewalDueAt);
			clock.advance(renewalDueAt - Date.now() + 50);
			expect(await refusalsAroundANewToken(harness, sim)).toBe(0);
		} finally {
			await sim.close();
			clock.restore();
		}
	});
});
