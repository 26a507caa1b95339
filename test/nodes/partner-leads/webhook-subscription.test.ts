import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import {
	editorContext,
	errorItemIndex,
	jsonOf,
	pairedIndexes,
	routeCount,
} from '../../support/fixtures';

describe('PartnerLeads: Webhook Subscription', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 15, allowInsecureLoopbackWebhooks: true });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	const create = (topic: string, url: string) => ({
		resource: 'webhookSubscription',
		operation: 'create',
		topic,
		url,
	});

	it('Create returns the subscription with its signing secret, marked as shown once', async () => {
		const run = await harness.runNode({
			parameters: create('lead/update', 'https://receiver.example/hook'),
		});
		expect(run.error).toBeUndefined();
		const [subscription] = sim.control.listSubscriptions();
		expect(run.items[0].json).toMatchObject({
			id: subscription.id,
			topic: 'lead/update',
			url: 'https://receiver.example/hook',
			signingSecret: subscription.signingSecret,
		});
		expect(run.items[0].json.signingSecretNotice).toMatch(
			/shown only in this answer.*like a password/,
		);
		expect(pairedIndexes(run)).toEqual([0]);
	});

	it('a plain http receiver is refused before any request, explaining the HTTPS rule', async () => {
		const run = await harness.runNode({
			parameters: create('lead/create', 'http://receiver.example/hook'),
		});
		expect(run.error?.message).toBe(
			'\'Receiver URL\' is not an HTTPS address: "http://receiver.example/hook"',
		);
		expect(run.error?.description).toContain('HTTPS only');
		expect(routeCount(sim, 'POST /subscriptions')).toBe(0);
	});

	it("the service's refusal of a topic is shown with its reason", async () => {
		const run = await harness.runNode({
			parameters: create('={{ "payment/create" }}', 'https://receiver.example/hook'),
		});
		expect(run.error?.message).toMatch(
			/^The service rejected the webhook subscription: .*Payment topics are inactive/,
		);
		expect(errorItemIndex(run)).toBe(0);
	});

	it('Get Many lists the subscriptions of this key, without secrets', async () => {
		await harness.runNode({
			parameters: create('={{ $json.topic }}', 'https://receiver.example/hook'),
			items: [{ topic: 'lead/create' }, { topic: 'lead/delete' }],
		});
		const run = await harness.runNode({
			parameters: { resource: 'webhookSubscription', operation: 'getMany' },
		});
		expect(jsonOf(run).map((subscription) => subscription.topic)).toEqual([
			'lead/create',
			'lead/delete',
		]);
		expect(jsonOf(run).every((subscription) => !('signingSecret' in subscription))).toBe(true);
	});

	it('Get Many reads every page: Return All gives all of them once, Limit exactly that many', async () => {
		const items = Array.from({ length: 45 }, (_, n) => ({
			topic: 'lead/update',
			url: `https://receiver.example/hook/${n}`,
		}));
		const created = await harness.runNode({
			parameters: create('={{ $json.topic }}', '={{ $json.url }}'),
			items,
		});
		expect(created.error).toBeUndefined();
		const all = await harness.runNode({
			parameters: { resource: 'webhookSubscription', operation: 'getMany', returnAll: true },
		});
		expect(
			jsonOf(all)
				.map((subscription) => subscription.url)
				.sort(),
		).toEqual(items.map((item) => item.url).sort());
		const ten = await harness.runNode({
			parameters: { resource: 'webhookSubscription', operation: 'getMany', limit: 10 },
		});
		expect(ten.items).toHaveLength(10);
		expect(new Set(jsonOf(ten).map((subscription) => subscription.id)).size).toBe(10);
	});

	it('Delete removes it; an unknown ID says it does not exist; Continue On Fail goes on', async () => {
		const created = await harness.runNode({
			parameters: create('lead/create', 'https://receiver.example/hook'),
		});
		const id = created.items[0].json.id as string;
		const run = await harness.runNode({
			parameters: {
				resource: 'webhookSubscription',
				operation: 'delete',
				subscriptionId: '={{ $json.id }}',
			},
			items: [{ id: 'unknown-subscription' }, { id }],
			continueOnFail: true,
		});
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({
				error: 'The webhook subscription unknown-subscription does not exist',
				httpCode: '404',
			}),
			{ id, deleted: true },
		]);
		expect(sim.control.listSubscriptions()).toHaveLength(0);

		const failed = await harness.runNode({
			parameters: { resource: 'webhookSubscription', operation: 'delete', subscriptionId: id },
		});
		expect(failed.error?.message).toBe(`The webhook subscription ${id} does not exist`);
	});

	it('the Subscription list shows each subscription by event and receiver; picking one deletes it', async () => {
		await harness.runNode({
			parameters: create('={{ $json.topic }}', '={{ $json.url }}'),
			items: [
				{ topic: 'lead/create', url: 'https://crm.example/created' },
				{ topic: 'lead/delete', url: 'https://crm.example/deleted' },
			],
		});
		const [created, deleted] = sim.control.listSubscriptions();
		const { context, methods } = editorContext(
			harness,
			{ resource: 'webhookSubscription', operation: 'delete' },
			'parameters.subscriptionId',
		);
		const all = await methods.listSearch!.searchSubscriptions.call(context);
		expect(all.results).toEqual([
			{ name: 'Lead Created → https://crm.example/created', value: created.id },
			{ name: 'Lead Deleted → https://crm.example/deleted', value: deleted.id },
		]);
		const found = await methods.listSearch!.searchSubscriptions.call(context, 'deleted');
		expect(found.results.map((result) => result.value)).toEqual([deleted.id]);

		const run = await harness.runNode({
			parameters: {
				resource: 'webhookSubscription',
				operation: 'delete',
				subscriptionId: {
					__rl: true,
					mode: 'list',
					value: created.id,
					cachedResultName: all.results[0].name,
				},
			},
		});
		expect(jsonOf(run)).toEqual([{ id: created.id, deleted: true }]);
		expect(sim.control.listSubscriptions().map((subscription) => subscription.id)).toEqual([
			deleted.id,
		]);
	});

	it('the Subscription list reads every page: all 45 subscriptions are offered once', async () => {
		const items = Array.from({ length: 45 }, (_, n) => ({
			topic: 'lead/update',
			url: `https://receiver.example/hook/${n}`,
		}));
		expect(
			(
				await harness.runNode({
					parameters: create('={{ $json.topic }}', '={{ $json.url }}'),
					items,
				})
			).error,
		).toBeUndefined();
		const { context, methods } = editorContext(
			harness,
			{ resource: 'webhookSubscription', operation: 'delete' },
			'parameters.subscriptionId',
		);
		const offered = (await methods.listSearch!.searchSubscriptions.call(context)).results;
		expect(offered.map((result) => result.value).sort()).toEqual(
			sim.control
				.listSubscriptions()
				.map((subscription) => subscription.id)
				.sort(),
		);
		expect(offered).toHaveLength(45);
	});

	it('Delete with no subscription chosen says so before any request', async () => {
		const run = await harness.runNode({
			parameters: {
				resource: 'webhookSubscription',
				operation: 'delete',
				subscriptionId: { __rl: true, mode: 'id', value: '={{ $json.subscription }}' },
			},
			items: [{ name: 'no subscription here' }],
		});
		expect(run.error?.message).toBe("No subscription chosen in 'Subscription'");
		expect(run.error?.description).toContain('Get Many');
		expect(routeCount(sim, 'DELETE /subscriptions/:id')).toBe(0);
	});
});
