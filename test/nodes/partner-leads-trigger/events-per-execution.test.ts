/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { sleep } from 'n8n-workflow';

import type { TriggerHost } from '../../harness/webhooks';
import {
	eventsPerExecution,
	ExecutionPlaces,
	MAX_EVENTS_PER_EXECUTION,
	placesFor,
	RUN_CONCURRENCY,
} from '../../../nodes/PartnerLeadsTrigger/runs/places';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import type { Output } from './recovery-helpers';
import { created, createThroughKill, quickTimings, restartAfterKill } from './recovery-helpers';

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
		for (const perExecution of [2, 4, 10, MAX_EVENTS_PER_EXECUTION]) {
			const places = placesFor(perExecution);
			expect(places).toBeGreaterThanOrEqual(2);
			expect(places).toBeLessThan(RUN_CONCURRENCY.runs);
			expect(places * perExecution).toBeGreaterThanOrEqual(RUN_CONCURRENCY.runs);
		}
	});
});

describe('ExecutionPlaces: which waiting runs share an execution', () => {
	type Request = { leadId: string; mayShare: boolean };

	/** Two places busy with a first execution each, then `waiting` queued behind them. */
	async function grouped(waiting: Request[], perExecution: number): Promise<string[][]> {
		const executions: string[][] = [];
		const busy: Array<() => void> = [];
		const places = new ExecutionPlaces<Request>(
			2,
			perExecution,
			async (requests) => {
				executions.push(requests.map((request) => request.leadId));
				await new Promise<void>((resolve) => busy.push(resolve));
				return requests.map(() => 'finished' as const);
			},
			(request) => request,
			() => undefined,
		);
		const runs = [
			{ leadId: 'first', mayShare: true },
			{ leadId: 'second', mayShare: true },
			...waiting,
		].map((request) => places.run(request));
		// each execution that ends frees its place for the next
		for (let ended = 0; ended < runs.length && busy.length > ended; ended++) {
			busy[ended]();
			await sleep(1);
		}
		await Promise.all(runs);
		return executions;
	}

	it('a run that finds a place free starts alone; waiting runs of other leads share, oldest first', async () => {
		const lead = (leadId: string) => ({ leadId, mayShare: true });
		expect(await grouped(['a', 'b', 'c', 'd', 'e'].map(lead), 3)).toEqual([
			['first'],
			['second'],
			['a', 'b', 'c'],
			['d', 'e'],
		]);
	});

	it('never two runs of one lead in an execution, and a run that may not share runs alone, in its turn', async () => {
		const waiting = [
			{ leadId: 'a', mayShare: true },
			{ leadId: 'a', mayShare: true },
			{ leadId: 'rerun', mayShare: false },
			{ leadId: 'b', mayShare: true },
		];
		expect(await grouped(waiting, 4)).toEqual([
			['first'],
			['second'],
			['a', 'b'],
			['a'],
			['rerun'],
		]);
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
		const { killed, answered } = await createThroughKill(setup, 120);
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
		// a run again keeps an execution of its own (and its deduplication key)
		for (const execution of host.executions) {
			const reasons = execution.items.map(
				(item) => (item.json as unknown as Output).recoveryReason,
			);
			if (reasons.includes('interrupted')) expect(reasons).toEqual(['interrupted']);
		}
		expect(host.runsInFlight()).toBe(0);
	});
});
