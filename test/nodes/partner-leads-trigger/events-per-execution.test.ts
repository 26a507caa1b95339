/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import type { TriggerHost } from '../../harness/webhooks';
import {
	eventsPerExecution,
	MAX_EVENTS_PER_EXECUTION,
	placesFor,
	RUN_CONCURRENCY,
} from '../../../nodes/PartnerLeadsTrigger/runs/places';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import type { Output } from './recovery-helpers';
import { created, eventually, quickTimings, restartAfterKill } from './recovery-helpers';

/**
 * Options > Events per Execution Under Load: under a backlog, runs that wait for a place share
 * an execution, each an item of its own; every event still runs once, a run again is marked
 * item by item, and without a backlog an event runs alone.
 */

/** Every item of every execution, with the execution it came in. */
function items(host: TriggerHost): Array<Output & { execution: number }> {
	return host.executions.flatMap((execution, index) =>
		execution.items.map((item) => ({ ...(item.json as unknown as Output), execution: index })),
	);
}

function eventOf(output: Output): string {
	return `${output.event.topic} ${output.event.id} ${output.event.timestamp}`;
}

describe('Events per Execution Under Load: the setting', () => {
	it('reads 1 for anything but a whole number above 1, and never more than the most', () => {
		expect([undefined, '', 'x', 0, -3, 1, 1.9].map(eventsPerExecution)).toEqual([
			1, 1, 1, 1, 1, 1, 1,
		]);
		expect([2, 10.7, '25', 10_000].map(eventsPerExecution)).toEqual([
			2,
			10,
			25,
			MAX_EVENTS_PER_EXECUTION,
		]);
	});

	it('1 keeps every place; more shares fewer places, never below 2, about as many items at once', () => {
		expect(placesFor(1)).toBe(RUN_CONCURRENCY.runs);
		for (const perExecution of [2, 4, 10, 100]) {
			const places = placesFor(perExecution);
			expect(places).toBeGreaterThanOrEqual(2);
			expect(places).toBeLessThan(RUN_CONCURRENCY.runs);
			expect(places * perExecution).toBeGreaterThanOrEqual(RUN_CONCURRENCY.runs);
		}
	});
});

describe('PartnerLeadsTrigger with Events per Execution Under Load', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it('300 creates at once, 10 per execution: each answered 200 at its first attempt, each event run once, in far fewer executions', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, options: { eventsPerExecution: 10 } },
			{ delivery: { concurrency: 40, retryDelaysMs: [50, 100, 200, 400, 800] } },
		);
		await setup.host.activate();
		// each execution takes 100 ms (the workflow's other nodes): runs wait for a place
		setup.host.executionMs = 100;
		const leads = Array.from({ length: 300 }, (_, index) => created(setup, `together${index}`));
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();

		const deliveries = setup.sim.control.deliveries();
		expect(deliveries).toHaveLength(300);
		expect(deliveries.filter((delivery) => delivery.status === 200)).toHaveLength(300);
		const ran = items(setup.host);
		expect(ran.map((item) => item.event.id).sort()).toEqual(leads.map((lead) => lead.id).sort());
		expect(ran.filter((item) => item.recovered)).toEqual([]);
		const sizes = setup.host.executions.map((execution) => execution.items.length);
		console.log(
			`300 events, 10 per execution at most: ${sizes.length} executions, at most ${Math.max(...sizes)} items, ${setup.host.concurrency.max} at once`,
		);
		expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
		expect(sizes.length).toBeLessThan(300 / 2);
		// each execution's items are leads of their own
		for (const execution of setup.host.executions) {
			const ids = execution.items.map((item) => (item.json as unknown as Output).event.id);
			expect(new Set(ids).size).toBe(ids.length);
		}
		expect(setup.host.concurrency.max).toBeLessThanOrEqual(placesFor(10));
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('one delivery at a time: every event runs alone, as with the setting at 1', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, options: { eventsPerExecution: 10 } },
			{ delivery: { concurrency: 1 } },
		);
		await setup.host.activate();
		setup.host.executionMs = 100;
		for (let index = 0; index < 12; index++) created(setup, `alone${index}`);
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();
		expect(setup.host.executions.map((execution) => execution.items.length)).toEqual(
			Array.from({ length: 12 }, () => 1),
		);
	});

	it('a hard kill in the middle: every event answered 200 runs, none twice unless marked, item by item', async () => {
		setup = await setUp(
			{
				events: ALL_TOPICS,
				fetchFullLead: true,
				recoverMissedEvents: false,
				options: { eventsPerExecution: 8 },
			},
			{ delivery: { concurrency: 30, retryDelaysMs: [50, 100, 200, 400, 800] } },
		);
		await setup.host.activate();
		// each execution takes 250 ms: the deliveries are answered faster than they run
		setup.host.executionMs = 250;
		setup.host.dieAfterEmits = 6;
		for (let index = 0; index < 120; index++) created(setup, `killed${index}`);
		await eventually(() => setup.host.dead, 'the kill');
		const killed = setup.host;
		await setup.sim.control.waitForDeliveries(60_000);
		const answered = new Set(
			setup.sim.control
				.deliveries()
				.filter((delivery) => delivery.status === 200)
				.map((delivery) => `${delivery.topic} ${delivery.leadId} ${delivery.timestamp}`),
		);
		expect(answered.size).toBeGreaterThan(6);

		const host = await restartAfterKill(setup);
		await host.settle();
		const runs = [...items(killed), ...items(host)];
		const ranEvents = new Set(runs.map(eventOf));
		expect([...answered].filter((event) => !ranEvents.has(event))).toEqual([]);
		const unmarked = runs.filter((run) => run.recoveryReason !== 'interrupted').map(eventOf);
		expect(unmarked.length).toBe(new Set(unmarked).size);
		// the killed process's executions that had several items: their runs again are marked each
		const marked = items(host).filter((run) => run.recoveryReason === 'interrupted');
		console.log(
			`a kill after 6 executions of up to 8: ${items(killed).length} items ran before it, ${marked.length} ran again marked, ${items(host).length - marked.length} first runs after it`,
		);
		expect(marked.length).toBeGreaterThan(0);
		expect(host.runsInFlight()).toBe(0);
	});
});
