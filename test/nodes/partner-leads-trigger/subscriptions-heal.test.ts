import { REACTIVATION } from '../../harness/webhooks';
import { simulatorCredentialData } from '../../harness/simulator-credential';
import { SUBSCRIPTION_CHECK } from '../../../nodes/PartnerLeadsTrigger/subscriptionCheck';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import {
	created,
	eventually,
	nextSecond,
	outputs,
	quickTimings,
	ran,
	restartAfterKill,
} from './recovery-helpers';

/**
 * Subscriptions that heal: one deleted at the service (in the portal, or with its API key revoked)
 * is noticed by trigger()'s check and created again through n8n's own activation (emitError), with
 * the credential as it is saved now; what changed meanwhile runs once, and while the key is
 * refused n8n says so where the user looks (a failed execution and the Error Workflow on 2.x, the
 * activation error on 1.x, which gives a trigger no failed execution of its own).
 */

const defaults = { check: { ...SUBSCRIPTION_CHECK }, reactivation: { ...REACTIVATION } };

beforeAll(() => {
	Object.assign(SUBSCRIPTION_CHECK, { everyMs: 200 });
	Object.assign(REACTIVATION, { firstWaitMs: 50 });
});
afterAll(() => {
	Object.assign(SUBSCRIPTION_CHECK, defaults.check);
	Object.assign(REACTIVATION, defaults.reactivation);
});

/** The service's subscriptions for the trigger's URL, as `topic owner`. */
function subscribed(setup: Setup): string[] {
	const url = setup.host.webhookUrl();
	return setup.sim.control
		.listSubscriptions()
		.filter((subscription) => subscription.url === url)
		.map((subscription) => `${subscription.topic} ${subscription.ownerClientId}`)
		.sort();
}

function subscribedWith(clientId: string): string[] {
	return ALL_TOPICS.map((topic) => `${topic} ${clientId}`).sort();
}

/** The user creates a new key in the portal and saves it into the credential (same credential). */
function saveNewKey(setup: Setup): string {
	const key = setup.sim.control.createKey({ selfServe: setup.sim.defaultKey.selfServe });
	setup.harness.replaceCredential(
		simulatorCredentialData(setup.sim, { clientId: key.clientId, clientSecret: key.clientSecret }),
	);
	return key.clientId;
}

/** The portal's admin revokes the key: its subscriptions go, its tokens stop working. */
function revokeKey(setup: Setup): void {
	setup.sim.control.revokeKey(setup.sim.defaultKey.clientId);
	setup.sim.control.expireTokens();
}

describe('PartnerLeadsTrigger: subscriptions that heal', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it.each([2, 1] as const)(
		'a subscription deleted at the service (n8n %s.x): the trigger subscribes again, n8n restarts it and keeps the subscription, the change made meanwhile runs once, marked missed',
		async (n8nLine) => {
			setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } }, { n8nLine });
			const lead = created(setup, 'kept');
			await setup.host.activate();
			await nextSecond();
			const update = setup.sim.control
				.listSubscriptions()
				.find((subscription) => subscription.topic === 'lead/update');
			// deleted in the portal, then the lead changes: the service has nobody to tell
			setup.sim.control.portalDeleteSubscription(update?.id ?? '');
			setup.sim.control.portalUpdateLead(lead.id, { value: 42 });

			await eventually(() => setup.host.executions.length >= 1, 'the missed change run');
			await setup.host.settle();
			expect(subscribed(setup)).toEqual(subscribedWith(setup.sim.defaultKey.clientId));
			expect(ran(setup.host)).toEqual([`lead/update ${lead.id} recovered`]);
			expect(outputs(setup.host)[0].recoveryReason).toBe('missed');
			expect(setup.host.reactivations).toEqual({ done: 1, failed: 0 });
			expect(setup.host.errorWorkflowRuns.map((error) => error.message)).toEqual([
				`The Partner Referral Service no longer had this trigger's subscription for "Lead Updated", so it sent no such events: the trigger subscribed again`,
			]);
			// restarted: the activation error is gone, and the database holds the new secret, so a
			// delivery of the new subscription verifies (each delivery reads the saved static data)
			expect(setup.host.activationError).toBeUndefined();
			setup.sim.control.portalUpdateLead(lead.id, { value: 43 });
			await setup.sim.control.waitForDeliveries(10_000);
			await setup.host.settle();
			expect(ran(setup.host).slice(1)).toEqual([`lead/update ${lead.id}`]);
		},
	);

	it('the API key revoked: a failed execution says so (n8n 2.x), and a new key saved into the credential is used with no republish: subscribed again, the leads changed meanwhile run once', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		const lead = created(setup, 'existing');
		await setup.host.activate();
		await nextSecond();
		revokeKey(setup);
		const createdMeanwhile = created(setup, 'meanwhile');
		setup.sim.control.portalUpdateLead(lead.id, { value: 7 });

		await eventually(() => setup.host.failedExecutions.length >= 1, 'a failed execution');
		expect(setup.host.failedExecutions[0].message).toMatch(
			/^The Partner Referral Service refused this trigger's credential, so the trigger cannot check or renew its subscriptions and receives no events: This API key has been revoked/,
		);
		expect(setup.host.errorWorkflowRuns).toHaveLength(1);
		// the trigger keeps running and checking: n8n does not deactivate it
		expect(setup.host.activationError).toBeUndefined();

		const newKey = saveNewKey(setup);
		await eventually(() => setup.host.executions.length >= 2, 'the changes made meanwhile');
		await setup.host.settle();
		expect(subscribed(setup)).toEqual(subscribedWith(newKey));
		expect(ran(setup.host).sort()).toEqual(
			[`lead/create ${createdMeanwhile.id} recovered`, `lead/update ${lead.id} recovered`].sort(),
		);
		// told once while refused (again only after SUBSCRIPTION_CHECK.reportEveryMs)
		expect(setup.host.failedExecutions).toHaveLength(1);
		expect(setup.host.reactivations).toEqual({ done: 1, failed: 0 });
	});

	it('the API key revoked on n8n 1.x (no failed execution for a trigger): the activation error and the Error Workflow say so; n8n keeps retrying and heals once a new key is saved', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } }, { n8nLine: 1 });
		await setup.host.activate();
		await nextSecond();
		revokeKey(setup);
		const createdMeanwhile = created(setup, 'meanwhile');

		await eventually(() => setup.host.reactivations.failed >= 2, 'n8n retrying the activation');
		expect(setup.host.activationError).toMatch(/revoked/);
		expect(setup.host.errorWorkflowRuns.map((error) => error.message)).toEqual([
			expect.stringMatching(/^The Partner Referral Service refused this trigger's credential/),
		]);
		expect(setup.host.failedExecutions).toEqual([]);

		const newKey = saveNewKey(setup);
		await eventually(() => setup.host.executions.length >= 1, 'the lead created meanwhile');
		await setup.host.settle();
		expect(setup.host.activationError).toBeUndefined();
		expect(subscribed(setup)).toEqual(subscribedWith(newKey));
		expect(ran(setup.host)).toEqual([`lead/create ${createdMeanwhile.id} recovered`]);
	});

	it('a hard kill while n8n subscribes again: after the restart one subscription per event, nothing lost, nothing twice', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		const lead = created(setup, 'kept');
		await setup.host.activate();
		await nextSecond();
		// the service takes its time to create the subscription again; n8n is killed meanwhile
		setup.sim.control.setFaults('POST /subscriptions', { held: true });
		const update = setup.sim.control
			.listSubscriptions()
			.find((subscription) => subscription.topic === 'lead/update');
		setup.sim.control.resetStats();
		setup.sim.control.portalDeleteSubscription(update?.id ?? '');
		setup.sim.control.portalUpdateLead(lead.id, { value: 1 });
		const creates = () => setup.sim.control.stats().byRoute['POST /subscriptions'] ?? 0;
		await eventually(() => creates() > 0, 'the re-subscription under way at the service');
		setup.host.killNow();
		// the dead process's request still reaches the service: a subscription nobody has the secret of
		setup.sim.control.setFaults('POST /subscriptions', {});
		await eventually(() => subscribed(setup).length === 3, 'the orphan subscription');

		const host = await restartAfterKill(setup);
		await eventually(() => host.executions.length >= 1, 'the missed change');
		await host.settle();
		expect(subscribed(setup)).toEqual(subscribedWith(setup.sim.defaultKey.clientId));
		expect(ran(host)).toEqual([`lead/update ${lead.id} recovered`]);
		// deliveries verify with the secrets saved at the restart
		const later = created(setup, 'later');
		await setup.sim.control.waitForDeliveries(10_000);
		await host.settle();
		expect(ran(host).slice(1)).toEqual([`lead/create ${later.id}`]);
	});
});
