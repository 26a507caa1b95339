import { N8nHarness } from '../../harness/harness';
import { TriggerHost } from '../../harness/webhooks';
import { startSimulator } from '../../simulator';
import type { LeadTopic } from '../../simulator';
import type { Setup } from './helpers';
import { ALL_TOPICS, deleteOnService, setUp, subscriptionsAt } from './helpers';

/**
 * Subscription lifecycle as n8n drives it: activation (checkExists, then create), restart
 * (checkExists only), deactivation (delete), and the editor's test URL.
 */

function topicsOnService(setup: Setup, url = setup.host.webhookUrl()): string[] {
	return subscriptionsAt(setup.sim, url)
		.map((subscription) => subscription.topic)
		.sort();
}

describe('PartnerLeadsTrigger subscription lifecycle', () => {
	let setup: Setup;

	beforeEach(async () => {
		setup = await setUp({ events: ALL_TOPICS });
	});

	afterEach(async () => {
		await setup.close();
	});

	it('activation makes one subscription per topic to the webhook URL; deactivation leaves none', async () => {
		const { sim, host } = setup;
		await host.activate();
		expect(topicsOnService(setup)).toEqual([...ALL_TOPICS].sort());
		expect(sim.control.listSubscriptions()).toHaveLength(3);
		const stored = host.store.nodeData(host.node.name).subscriptions as {
			webhookUrl: string;
			byTopic: object;
		};
		expect(stored.webhookUrl).toBe(host.webhookUrl());
		expect(Object.keys(stored.byTopic).sort()).toEqual([...ALL_TOPICS].sort());
		expect(await host.checkExists()).toBe(true);

		await host.deactivate();
		expect(sim.control.listSubscriptions()).toHaveLength(0);
		expect(host.store.nodeData(host.node.name).subscriptions).toBeUndefined();
		expect(await host.checkExists()).toBe(false);
	});

	it('a restart with saved static data reuses the subscriptions (checkExists true, nothing created)', async () => {
		const { sim, host } = setup;
		await host.activate();
		const ids = sim.control
			.listSubscriptions()
			.map((subscription) => subscription.id)
			.sort();
		const creates = sim.control.stats().byRoute['POST /subscriptions'];
		await host.activate();
		expect(sim.control.stats().byRoute['POST /subscriptions']).toBe(creates);
		expect(
			sim.control
				.listSubscriptions()
				.map((subscription) => subscription.id)
				.sort(),
		).toEqual(ids);
	});

	it('checkExists is false after a manual deletion on the service, and re-activation heals', async () => {
		const { sim, harness, host } = setup;
		await host.activate();
		const [victim, ...others] = sim.control.listSubscriptions();
		await deleteOnService(harness, victim.id);
		const before = sim.control.listSubscriptions().length;

		expect(await host.checkExists()).toBe(false);
		// checkExists never deletes anything
		expect(sim.control.listSubscriptions()).toHaveLength(before);

		await host.activate();
		expect(topicsOnService(setup)).toEqual([...ALL_TOPICS].sort());
		// the subscriptions that survived are kept, only the missing one is recreated
		const ids = sim.control.listSubscriptions().map((subscription) => subscription.id);
		for (const other of others) expect(ids).toContain(other.id);
		expect(await host.checkExists()).toBe(true);
	});

	it('checkExists is false when another subscription of this key points at the URL; create removes it', async () => {
		const { sim, host } = setup;
		await host.activate();
		// A crash after create, before n8n saved static data: the next activation knows nothing.
		host.store.wipe();
		await host.activate();
		expect(topicsOnService(setup)).toEqual([...ALL_TOPICS].sort());
		expect(sim.control.listSubscriptions()).toHaveLength(3);
	});

	it('finds and removes its own subscriptions on any page of the list', async () => {
		const { sim, harness, host } = setup;
		// 40 subscriptions of the same key for other receivers, listed before the trigger's own
		const others = Array.from({ length: 40 }, (_, n) => ({
			url: `https://other-receiver.example/hook/${n}`,
		}));
		const made = await harness.runNode({
			parameters: {
				resource: 'webhookSubscription',
				operation: 'create',
				topic: 'lead/update',
				url: '={{ $json.url }}',
			},
			items: others,
		});
		expect(made.error).toBeUndefined();
		await host.activate();
		expect(await host.checkExists()).toBe(true);
		// a crash before n8n saved static data: the next activation must find its leftovers on later pages
		host.store.wipe();
		expect(await host.checkExists()).toBe(false);
		await host.activate();
		expect(topicsOnService(setup)).toEqual([...ALL_TOPICS].sort());
		await host.deactivate();
		expect(topicsOnService(setup)).toEqual([]);
		expect(sim.control.listSubscriptions()).toHaveLength(40);
	});

	it('a changed topic selection is seen by checkExists and applied by create', async () => {
		const { sim, harness, host } = setup;
		await host.activate();
		const restart = host.persisted({ events: ['lead/update'] });
		await host.close();
		const narrowed = await TriggerHost.start(harness, restart);
		try {
			expect(await narrowed.checkExists()).toBe(false);
			await narrowed.activate();
			expect(sim.control.listSubscriptions().map((subscription) => subscription.topic)).toEqual([
				'lead/update',
			]);
			await narrowed.deactivate();
			expect(sim.control.listSubscriptions()).toHaveLength(0);
		} finally {
			await narrowed.close();
		}
	});

	it('50 activate/deactivate cycles with crashes and topic changes leave no orphan subscription', async () => {
		const { sim, harness, host } = setup;
		const subsets: LeadTopic[][] = [
			ALL_TOPICS,
			['lead/create'],
			['lead/update', 'lead/delete'],
			['lead/create', 'lead/delete'],
		];
		let current = host;
		let crashes = 0;
		try {
			for (let cycle = 0; cycle < 50; cycle++) {
				const topics = subsets[cycle % subsets.length];
				// Every cycle is a fresh Workflow from the saved static data, as after a restart.
				if (cycle > 0) {
					const restart = current.persisted({ events: topics });
					await current.close();
					current = await TriggerHost.start(harness, restart);
				}
				await current.activate();
				expect(topicsOnService(setup, current.webhookUrl())).toEqual([...topics].sort());
				if (cycle % 7 === 3) {
					// n8n died after create, before saving static data: the subscriptions stay on the
					// service, their secrets are lost. The next activation must clean them up.
					current.store.wipe();
					crashes++;
					continue;
				}
				if (cycle % 5 === 1) await current.activate(); // a restart in between changes nothing
				await current.deactivate();
				expect(sim.control.listSubscriptions()).toHaveLength(0);
			}
			await current.deactivate();
		} finally {
			await current.close();
		}
		expect(crashes).toBeGreaterThanOrEqual(7);
		expect(sim.control.listSubscriptions()).toHaveLength(0);
	});

	it('a failed create removes what it made (faults on subscription create, 20 activations)', async () => {
		const { sim, host } = setup;
		sim.control.setFaults('POST /subscriptions', { rate5xx: 0.25, rate5xxAfterEffect: 0.15 });
		let failed = 0;
		let succeeded = 0;
		for (let attempt = 0; attempt < 20; attempt++) {
			try {
				await host.activate();
				succeeded++;
				expect(sim.control.listSubscriptions()).toHaveLength(3);
				await host.deactivate();
			} catch (error) {
				failed++;
				expect((error as Error).message).toMatch(
					/Could not subscribe to "lead\/(create|update|delete)" events/,
				);
				expect(host.store.nodeData(host.node.name).subscriptions).toBeUndefined();
			}
			expect(sim.control.listSubscriptions()).toHaveLength(0);
		}
		expect(failed).toBeGreaterThan(0);
		expect(succeeded).toBeGreaterThan(0);
	});

	it('the test URL ("listen for test event") gets its own subscriptions and leaves the active ones alone', async () => {
		const { sim, host } = setup;
		await host.activate();
		const production = sim.control
			.listSubscriptions()
			.map((subscription) => subscription.id)
			.sort();

		await host.listenForTestEvent();
		expect(topicsOnService(setup, host.webhookUrl('test'))).toEqual([...ALL_TOPICS].sort());

		const lead = sim.control.portalCreateLead({
			firstName: 'Test',
			lastName: 'Event',
			email: 'test@example.com',
		});
		await sim.control.waitForDeliveries(5000);
		await host.settle();

		// one execution per URL (the production one started by trigger(), which runs it);
		// the test webhook is removed after its first execution
		expect(host.executions.map((execution) => execution.mode).sort()).toEqual([
			'manual',
			'trigger',
		]);
		for (const execution of host.executions)
			expect(execution.items[0].json.lead).toMatchObject({ id: lead.id });
		expect(host.listening).toBe(false);
		expect(subscriptionsAt(sim, host.webhookUrl('test'))).toHaveLength(0);
		expect(
			sim.control
				.listSubscriptions()
				.map((subscription) => subscription.id)
				.sort(),
		).toEqual(production);
		expect(await host.checkExists()).toBe(true);
	});
});

describe('PartnerLeadsTrigger on a plain-http URL', () => {
	it('is refused by the service, and the error says to set an HTTPS WEBHOOK_URL', async () => {
		const sim = await startSimulator({ seed: 7 });
		const host = await TriggerHost.start(new N8nHarness(sim), {
			parameters: { events: ALL_TOPICS },
		});
		try {
			const failure = await host.activate().then(
				() => undefined,
				(error: Error & { description?: string }) => error,
			);
			expect(failure).toBeDefined();
			expect(failure?.message).toMatch(/HTTPS/);
			expect(failure?.message).toMatch(/WEBHOOK_URL/);
			expect(failure?.description).toMatch(/only|HTTPS/i);
			expect(sim.control.listSubscriptions()).toHaveLength(0);
			expect(host.store.nodeData(host.node.name).subscriptions).toBeUndefined();
		} finally {
			await host.close();
			await sim.close();
		}
	});
});
