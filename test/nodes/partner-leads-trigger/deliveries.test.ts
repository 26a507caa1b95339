/* eslint-disable @typescript-eslint/no-require-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { randomUUID } from 'node:crypto';

import type * as HarnessModule from '../../harness/harness';
import type { N8nHarness } from '../../harness/harness';
import type * as WebhooksModule from '../../harness/webhooks';
import type { TriggerHost } from '../../harness/webhooks';
import type { Lead } from '../../simulator';
import { LogCapture } from '../../security/capture';
import { sleep } from '../../simulator/test-helpers';
import { PREPARE_RETRY } from '../../../nodes/PartnerLeadsTrigger/runs/queue';
import {
	eventMark,
	eventTimeSeconds,
	SeenEvents,
} from '../../../nodes/PartnerLeadsTrigger/state/seenEvents';
import type { LeadEvent } from '../../../nodes/shared/leadItem';
import type { Setup } from './helpers';
import { ALL_TOPICS, executedEvents, post, setUp, signed, storedSecret } from './helpers';

/**
 * The simulator's own signed deliveries, at least once and unordered, through real HTTP
 * into n8n-core's webhook context and real executions.
 */

function newLeads(setup: Setup, count: number): Lead[] {
	return Array.from({ length: count }, (_, index) =>
		setup.sim.control.portalCreateLead({
			firstName: `Lead${index}`,
			lastName: 'Test',
			email: `lead${index}@example.com`,
		}),
	);
}

async function deliveredAndSettled(setup: Setup, timeoutMs = 20_000): Promise<void> {
	await setup.sim.control.waitForDeliveries(timeoutMs);
	await setup.host.settle();
	expect(setup.host.crashes).toEqual([]);
	expect(setup.host.statuses()[500]).toBeUndefined();
}

/** Distinct events the service emitted (deliveries of one event share topic, lead and timestamp). */
function emittedEvents(setup: Setup): string[] {
	return [
		...new Set(
			setup.sim.control
				.deliveries()
				.map((attempt) => `${attempt.topic} ${attempt.leadId} ${attempt.timestamp}`),
		),
	];
}

describe('PartnerLeadsTrigger deliveries', () => {
	let setup: Setup;

	// a run whose lead could not be read is tried again within a test's patience
	const retry = { ...PREPARE_RETRY };
	beforeAll(() => Object.assign(PREPARE_RETRY, { firstMs: 50, maxMs: 400 }));
	afterAll(() => Object.assign(PREPARE_RETRY, retry));

	afterEach(async () => {
		await setup?.close();
	});

	it('starts one execution per event, with the full lead for create and update and the id for delete', async () => {
		setup = await setUp({ events: ALL_TOPICS });
		await setup.host.activate();
		const [lead] = newLeads(setup, 1);
		await deliveredAndSettled(setup);
		setup.sim.control.portalUpdateLead(lead.id, { value: 1234 });
		await deliveredAndSettled(setup);
		setup.sim.control.portalDeleteLead(lead.id);
		await deliveredAndSettled(setup);

		const items = setup.host.executions.map((execution) => execution.items[0].json);
		expect(items).toHaveLength(3);
		expect(items[0]).toMatchObject({
			event: { id: lead.id, topic: 'lead/create' },
			lead: { id: lead.id, firstName: 'Lead0' },
		});
		expect(items[1]).toMatchObject({
			event: { id: lead.id, topic: 'lead/update' },
			lead: { id: lead.id, value: 1234 },
		});
		expect(items[2]).toEqual({
			event: { id: lead.id, topic: 'lead/delete', timestamp: expect.any(String) },
		});
		for (const item of items)
			expect(Object.keys(item.event as object).sort()).toEqual(['id', 'timestamp', 'topic']);
	});

	it('without Fetch Full Lead outputs the event only and makes no lead request', async () => {
		setup = await setUp({ events: ['lead/create'], fetchFullLead: false });
		await setup.host.activate();
		setup.sim.control.resetStats();
		const [lead] = newLeads(setup, 1);
		await deliveredAndSettled(setup);
		expect(setup.host.executions.map((execution) => execution.items[0].json)).toEqual([
			{ event: { id: lead.id, topic: 'lead/create', timestamp: expect.any(String) } },
		]);
		expect(setup.sim.control.stats().byRoute['GET /leads/:id'] ?? 0).toBe(0);
	});

	it('with duplicates and reordering, 200 distinct events give exactly 200 executions', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { seed: 1234 });
		await setup.host.activate();
		setup.sim.control.setDeliveryFaults({ duplicateRate: 0.5, reorder: true });
		const leads = newLeads(setup, 100);
		for (const lead of leads) setup.sim.control.portalUpdateLead(lead.id, { value: 7 });
		await deliveredAndSettled(setup);

		const attempts = setup.sim.control.deliveries();
		const duplicates = attempts.filter((attempt) => attempt.duplicate);
		expect(emittedEvents(setup)).toHaveLength(200);
		expect(duplicates.length).toBeGreaterThan(50);
		expect(duplicates.every((attempt) => attempt.status === 200)).toBe(true);

		const executed = executedEvents(setup.host);
		expect(executed).toHaveLength(200);
		expect(new Set(executed)).toEqual(new Set(emittedEvents(setup)));
		for (const execution of setup.host.executions) {
			const { event, lead } = execution.items[0].json as {
				event: { id: string };
				lead: { id: string };
			};
			expect(lead.id).toBe(event.id);
		}
		// Every event made it into the saved static data, although deliveries ran concurrently
		// and each one saved its own copy of it: a process reading it anew knows all 200.
		const saved = structuredClone(setup.host.store.nodeData(setup.host.node.name));
		const restarted = new SeenEvents(saved, randomUUID(), { maxAgeSeconds: 72 * 3600 });
		const recalled = emittedEvents(setup).map((key) => {
			const [topic, id, timestamp] = key.split(' ');
			const event = { topic, id, timestamp } as LeadEvent;
			return restarted.recall(eventMark(event, eventTimeSeconds(timestamp) ?? 0));
		});
		expect(recalled).toEqual(Array(200).fill('seen'));
	});

	it('when the lead fetch fails, the event is accepted all the same and runs exactly once when the lead can be read', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { seed: 99, delivery: { maxAttempts: 12 } });
		await setup.host.activate();
		setup.sim.control.setFaults('GET /leads/:id', { rate5xx: 0.5 });
		setup.sim.control.setDeliveryFaults({ duplicateRate: 0.2, reorder: true });
		const leads = newLeads(setup, 60);
		for (const lead of leads) setup.sim.control.portalUpdateLead(lead.id, { notes: 'changed' });
		await deliveredAndSettled(setup, 30_000);

		const fetches = setup.sim.control.stats().byRoute['GET /leads/:id'] ?? 0;
		expect(fetches).toBeGreaterThan(120);
		const executed = executedEvents(setup.host);
		expect(executed).toHaveLength(120);
		expect(new Set(executed)).toEqual(new Set(emittedEvents(setup)));
		// every delivery ended acknowledged, and none was left for the service to give up on
		const byDelivery = new Map<string, number[]>();
		for (const attempt of setup.sim.control.deliveries().filter((entry) => !entry.duplicate)) {
			byDelivery.set(attempt.deliveryId, [
				...(byDelivery.get(attempt.deliveryId) ?? []),
				attempt.status ?? 0,
			]);
		}
		for (const statuses of byDelivery.values()) expect(statuses[statuses.length - 1]).toBe(200);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('answers 503 to a second delivery of an event that is still being processed', async () => {
		setup = await setUp({ events: ['lead/create'] });
		await setup.host.activate();
		const [lead] = setup.sim.control.seedLeads(1);
		// The first delivery's lead fetch is held for a second; the second delivery is sent once
		// the service has received that fetch, so the first is certainly still being processed.
		setup.sim.control.setFaults('GET /leads/:id', { latencyMs: 1000 });
		const secret = storedSecret(setup, 'lead/create');
		const delivery = signed(secret, lead.id, 'lead/create');
		const url = setup.host.webhookUrl();
		const first = post(url, delivery.rawBody, delivery.headers);
		const fetches = () => setup.sim.control.stats().byRoute['GET /leads/:id'] ?? 0;
		for (let turn = 0; turn < 500 && fetches() === 0; turn++) await sleep(5);
		expect(fetches()).toBe(1);
		const second = await post(url, delivery.rawBody, delivery.headers);
		expect(second).toBe(503);
		expect(await first).toBe(200);
		expect(await post(url, delivery.rawBody, delivery.headers)).toBe(200);
		await setup.host.settle();
		expect(executedEvents(setup.host)).toHaveLength(1);
	});

	// n8n 1.x saves what the delivery handler changed; 2.x only when the handler answered the request itself
	it.each(['always', 'whenAnsweredByNode'] as const)(
		"remembers processed events across a restart of n8n (a new process, only static data kept; n8n saves the webhook's static data %s)",
		async (webhookStaticDataSaved) => {
			setup = await setUp({ events: ALL_TOPICS }, {}, { webhookStaticDataSaved });
			await setup.host.activate();
			newLeads(setup, 5);
			await deliveredAndSettled(setup);
			expect(setup.host.executions).toHaveLength(5);
			const acknowledged = setup.sim.control.deliveries().filter((attempt) => attempt.acknowledged);
			const creates = setup.sim.control.stats().byRoute['POST /subscriptions'];

			// A new process: fresh n8n-core, fresh node module (no memory), same saved static data.
			const restart = setup.host.persisted();
			await setup.host.close();
			let fresh!: { harness: N8nHarness; TriggerHost: typeof TriggerHost };
			jest.isolateModules(() => {
				const { N8nHarness: FreshHarness, TRIGGER_NODE_TYPE } =
					require('../../harness/harness') as typeof HarnessModule;
				const harness = new FreshHarness(setup.sim);
				// loaded now, inside the isolated registry: the node's modules start empty
				harness.nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1);
				fresh = {
					harness,
					TriggerHost: (require('../../harness/webhooks') as typeof WebhooksModule).TriggerHost,
				};
			});
			setup.host = await fresh.TriggerHost.start(fresh.harness, restart);
			await setup.host.activate();
			expect(setup.sim.control.stats().byRoute['POST /subscriptions']).toBe(creates);

			// the service delivers the same bytes again: acknowledged, nothing runs twice
			for (const attempt of acknowledged) {
				expect(await post(setup.host.webhookUrl(), attempt.rawBody, attempt.headers)).toBe(200);
			}
			await setup.host.settle();
			expect(executedEvents(setup.host)).toEqual([]);

			newLeads(setup, 1);
			await deliveredAndSettled(setup);
			expect(setup.host.executions).toHaveLength(1);
		},
	);

	it('a validly signed delivery of a week-old or future event starts nothing and stops the retries', async () => {
		setup = await setUp({ events: ['lead/create'], options: { maxEventAgeHours: 72 } });
		await setup.host.activate();
		const capture = new LogCapture();
		const [lead] = setup.sim.control.seedLeads(1);
		const secret = storedSecret(setup, 'lead/create');
		const url = setup.host.webhookUrl();
		const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
		const cases = [
			{ timestamp: at(-7 * 24 * 3600_000), reason: 'tooOld' },
			{ timestamp: at(-73 * 3600_000), reason: 'tooOld' },
			{ timestamp: at(10 * 60_000), reason: 'inFuture' },
			{ timestamp: 'last tuesday', reason: 'unreadable' },
		];
		capture.start();
		for (const { timestamp, reason } of cases) {
			const delivery = signed(secret, lead.id, 'lead/create', timestamp);
			const headers: Record<string, string> = { ...delivery.headers };
			delete headers['content-length'];
			const response = await fetch(url, { method: 'POST', body: delivery.rawBody, headers });
			expect(response.status).toBe(200);
			expect(await response.json()).toEqual({ received: true, ignored: 'possible replay', reason });
		}
		// inside the window: runs once
		const recent = signed(secret, lead.id, 'lead/create', at(-71 * 3600_000));
		expect(await post(url, recent.rawBody, recent.headers)).toBe(200);
		expect(await post(url, recent.rawBody, recent.headers)).toBe(200);
		await setup.host.settle();
		expect(executedEvents(setup.host)).toHaveLength(1);
		capture.stop();
		const warnings = capture.records.filter((record) => record.channel === 'n8n logger.warn');
		expect(warnings.map((record) => String(record.args[0]))).toEqual(
			cases.map(() => expect.stringMatching(/ignored a signed delivery as a possible replay/)),
		);
		const logged = JSON.stringify(capture.records.map((record) => record.args));
		expect(logged).not.toContain(lead.id);
		for (const { timestamp } of cases) expect(logged).not.toContain(timestamp);
	});

	it('a lead fetch answered 429 with a long Retry-After does not hold the delivery: it is accepted, and runs once the service allows', async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 2 } });
		await setup.host.activate();
		setup.sim.control.setFaults('GET /leads/:id', { rate429: 1, retryAfterSeconds: 30 });
		const [lead] = newLeads(setup, 1);
		await setup.sim.control.waitForDeliveries(10_000);
		const attempts = setup.sim.control.deliveries();
		// answered at once (not after the 30 s wait), so the service keeps no event to retry
		expect(attempts.map((attempt) => attempt.status)).toEqual([200]);
		expect(setup.host.executions).toHaveLength(0);
		expect(setup.host.runsInFlight()).toBe(1);
		setup.sim.control.setFaults('GET /leads/:id', {});
		await setup.host.settle();
		expect(executedEvents(setup.host)).toEqual([
			expect.stringMatching(new RegExp(`^lead/create ${lead.id} `)),
		]);
	});
});
