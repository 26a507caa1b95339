/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { sleep } from 'n8n-workflow';

import type { TriggerHost, TriggerHostOptions } from '../../harness/webhooks';
import { NEXT_NODE } from '../../harness/webhooks';
import { PartnerLeadsTrigger } from '../../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { SHARED_EXECUTION_FAILED_MARK } from '../../../nodes/PartnerLeadsTrigger/runs/executor';
import {
	leadsPerExecution,
	ExecutionPlaces,
	GATHER,
	MAX_LEADS_PER_EXECUTION,
	RUN_CONCURRENCY,
} from '../../../nodes/PartnerLeadsTrigger/runs/places';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import type { Output } from './recovery-helpers';
import {
	created,
	createThroughKill,
	eventually,
	quickTimings,
	restartAfterKill,
} from './recovery-helpers';

/**
 * Options > Leads per Execution Under Load: under a backlog, runs that wait for a place share
 * an execution, each an item of its own; every event still runs once, a run again is marked
 * item by item, and without a backlog an event runs alone.
 */

/** Every item of every execution, with the execution it came in. */
function items(host: TriggerHost): Array<Output & { execution: number }> {
	return host.executions.flatMap((execution, index) =>
		execution.items.map((item) => ({ ...(item.json as unknown as Output), execution: index })),
	);
}

/** The service sending 40 deliveries at once, each retried briefly. */
const BURST_DELIVERY = { delivery: { concurrency: 40, retryDelaysMs: [50, 100, 200, 400, 800] } };

/**
 * A trigger (all events, the full lead) named `name`, Leads per Execution Under Load as given or
 * left unset, in front of the service sending a burst; optionally a node after it.
 */
async function setUpBurst(
	name: string,
	perExecution?: number,
	next?: TriggerHostOptions['next'],
): Promise<Setup> {
	return await setUp(
		{
			events: ALL_TOPICS,
			fetchFullLead: true,
			options: perExecution === undefined ? {} : { leadsPerExecution: perExecution },
		},
		BURST_DELIVERY,
		{ node: { id: name, name: 'Trigger', webhookId: name }, next },
	);
}

function eventOf(output: Output): string {
	return `${output.event.topic} ${output.event.id} ${output.event.timestamp}`;
}

describe('Leads per Execution Under Load: the setting', () => {
	it('reads 1 for anything but a whole number above 1, and never more than the most', () => {
		expect([undefined, '', 'x', 0, -3, 1, 1.9].map(leadsPerExecution)).toEqual([
			1, 1, 1, 1, 1, 1, 1,
		]);
		expect([2, 10.7, '25', 10_000].map(leadsPerExecution)).toEqual([
			2,
			10,
			25,
			MAX_LEADS_PER_EXECUTION,
		]);
	});

	it('left unset: 1, one lead one execution, as a test in the editor gives it', () => {
		const option = new PartnerLeadsTrigger().description.properties
			.find((property) => property.name === 'options')
			?.options?.find((entry) => 'name' in entry && entry.name === 'leadsPerExecution');
		expect(option).toMatchObject({ default: 1 });
		expect(leadsPerExecution(undefined)).toBe(1);
		expect(leadsPerExecution('')).toBe(1);
	});

	it('sharing keeps every place; a delivery waits for its run only while a few run', () => {
		const run = async () => [];
		const share = () => ({ leadId: '', mayShare: true });
		const alone = new ExecutionPlaces(RUN_CONCURRENCY.runs, 1, run, share, () => undefined);
		expect([alone.places, alone.runsAtOnce, alone.holdsBelow]).toEqual([16, 16, 16]);
		for (const perExecution of [2, 4, 10, MAX_LEADS_PER_EXECUTION]) {
			const places = new ExecutionPlaces(16, perExecution, run, share, () => undefined);
			expect(places.runsAtOnce).toBe(RUN_CONCURRENCY.runs * perExecution);
			expect(places.holdsBelow).toBeGreaterThanOrEqual(2);
			expect(places.holdsBelow).toBeLessThan(RUN_CONCURRENCY.runs);
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

describe('ExecutionPlaces: when a shared execution starts', () => {
	const gatherMs = GATHER.ms;
	beforeAll(() => (GATHER.ms = 300));
	afterAll(() => (GATHER.ms = gatherMs));

	/** 16 places, 4 per execution (a delivery waits for its run only while 4 run): four busy. */
	function placesWithFourBusy(moreComing = () => true) {
		const started: Array<{ leads: string[]; atMs: number }> = [];
		const finish: Array<() => void> = [];
		const places = new ExecutionPlaces<string>(
			RUN_CONCURRENCY.runs,
			4,
			async (leads) => {
				started.push({ leads, atMs: Date.now() });
				await new Promise<void>((resolve) => finish.push(resolve));
				return leads.map(() => 'finished' as const);
			},
			(leadId) => ({ leadId, mayShare: !leadId.startsWith('rerun') }),
			() => undefined,
			moreComing,
		);
		const runs = ['busy1', 'busy2', 'busy3', 'busy4'].map((lead) => places.run(lead));
		return { places, started, finish, runs };
	}

	it('while few run, each starts at once, alone; past them a full execution starts at once', async () => {
		const { places, started, finish, runs } = placesWithFourBusy();
		expect(places.holdsBelow).toBe(4);
		expect(started.map((execution) => execution.leads)).toEqual([
			['busy1'],
			['busy2'],
			['busy3'],
			['busy4'],
		]);
		runs.push(...['a', 'b', 'c'].map((lead) => places.run(lead)));
		await sleep(20);
		expect(started).toHaveLength(4);
		runs.push(places.run('d'));
		await sleep(20);
		expect(started.map((execution) => execution.leads)[4]).toEqual(['a', 'b', 'c', 'd']);
		// a run that may not share does not wait for others
		runs.push(places.run('rerun1'));
		await sleep(20);
		expect(started.map((execution) => execution.leads)[5]).toEqual(['rerun1']);
		finish.forEach((end) => end());
		await sleep(20);
		finish.forEach((end) => end());
		await Promise.all(runs);
	});

	it('past them, fewer than a full execution start once the oldest waited GATHER.ms', async () => {
		const { places, started, finish, runs } = placesWithFourBusy();
		const sentMs = Date.now();
		runs.push(...['a', 'b'].map((lead) => places.run(lead)));
		await sleep(GATHER.ms / 2);
		expect(started).toHaveLength(4);
		await sleep(GATHER.ms / 2 + 200);
		const shared = started[4];
		expect(shared.leads).toEqual(['a', 'b']);
		expect(shared.atMs - sentMs).toBeGreaterThanOrEqual(GATHER.ms - 5);
		finish.forEach((end) => end());
		await Promise.all(runs);
	});

	it('past them, a run starts at once when no other run is on its way', async () => {
		const { places, started, finish, runs } = placesWithFourBusy(() => false);
		runs.push(places.run('alone'));
		await sleep(20);
		expect(started.map((execution) => execution.leads)[4]).toEqual(['alone']);
		finish.forEach((end) => end());
		await Promise.all(runs);
	});

	it('closed: runs waiting settle as not started and nothing starts after, the wait included', async () => {
		const { places, started, finish, runs } = placesWithFourBusy();
		const waiting = ['a', 'b'].map((lead) => places.run(lead));
		places.close();
		expect(await Promise.all(waiting)).toEqual(['notStarted', 'notStarted']);
		expect(await places.run('later')).toBe('notStarted');
		await sleep(GATHER.ms + 100);
		expect(started).toHaveLength(4);
		// the executions under way still finish
		finish.forEach((end) => end());
		expect(await Promise.all(runs)).toEqual(runs.map(() => 'finished'));
	});
});

describe('PartnerLeadsTrigger with Leads per Execution Under Load', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it('300 creates at once, 10 per execution: each answered 200 at its first attempt, each event run once, in far fewer executions', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, options: { leadsPerExecution: 10 } },
			BURST_DELIVERY,
		);
		await setup.host.activate();
		// each execution takes 400 ms (the workflow's other nodes): runs wait for a place
		setup.host.executionMs = 400;
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
		expect(setup.host.concurrency.max).toBeLessThanOrEqual(RUN_CONCURRENCY.runs);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('left unset every event runs alone; 10 chosen, leads share and keep their places for a slow workflow', async () => {
		const burst = async (perExecution?: number) => {
			const name = `per${perExecution ?? 'Default'}`;
			setup = await setUpBurst(name, perExecution);
			await setup.host.activate();
			// a workflow that waits on each item, one after the other (an AI model): 200 ms each
			setup.host.itemMs = 200;
			// the service stalls lead reads until the burst is answered: every event waits to run,
			// whatever the machine's speed
			setup.sim.control.setFaults('GET /leads/:id', { held: true });
			for (let index = 0; index < 160; index++) created(setup, `${name}-${index}`);
			await setup.sim.control.waitForDeliveries(60_000);
			setup.sim.control.setFaults('GET /leads/:id', {});
			await setup.host.settle();
			const sizes = setup.host.executions.map((execution) => execution.items.length);
			const deliveries = setup.sim.control.deliveries();
			const figures = {
				executions: sizes.length,
				items: sizes.reduce((sum, size) => sum + size, 0),
				most: Math.max(...sizes),
				atOnce: setup.host.concurrency.max,
				itemsAtOnce: setup.host.itemsUnderWay.max,
				answered: deliveries.filter((delivery) => delivery.status === 200).length,
			};
			await setup.close();
			return figures;
		};
		const added = await burst(10);
		const before = await burst();
		console.log(
			`160 creates, 200 ms per item: 10 per execution ${JSON.stringify(added)}, left unset ${JSON.stringify(before)}`,
		);
		for (const figures of [added, before]) {
			expect(figures.items).toBe(160);
			expect(figures.answered).toBe(160);
		}
		expect(before.executions).toBe(160);
		expect(added.most).toBeLessThanOrEqual(10);
		expect(added.executions).toBeLessThan(160 / 2);
		// at least as many events under way at once as with one execution per event, in more
		// executions than those that start at once: a workflow that waits on each item keeps
		// its places (with 16 / 10 places it would work through 2 executions' items at a time)
		expect(added.itemsAtOnce).toBeGreaterThanOrEqual(
			Math.max(RUN_CONCURRENCY.runs, before.itemsAtOnce),
		);
		expect(added.atOnce).toBeGreaterThan(2 * Math.ceil(RUN_CONCURRENCY.runs / 10));
		expect(added.atOnce).toBeLessThanOrEqual(RUN_CONCURRENCY.runs);
	});

	/**
	 * 150 creates at once to a workflow whose next node refuses 3 of the leads (a CRM answering
	 * 500): the leads that reached the end of the workflow, in executions that succeeded, and
	 * the executions that failed with the leads they carried.
	 */
	async function burstWithRefusedLeads(perExecution?: number) {
		const name = `refuse${perExecution ?? 'Default'}`;
		const names = Array.from({ length: 150 }, (_, index) => `${name}-${index}`);
		const refusedNames = [names[20], names[75], names[140]];
		setup = await setUpBurst(name, perExecution, {
			type: 'test.refuseLeads',
			parameters: { refuseFirstNames: refusedNames },
		});
		await setup.host.activate();
		setup.host.executionMs = 200;
		const leads = names.map((leadName) => created(setup, leadName));
		const refused = leads
			.filter((lead) => refusedNames.includes(String(lead.firstName)))
			.map((lead) => lead.id);
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();
		const reached: string[] = [];
		const failed: Array<{ leads: string[]; reasons: unknown[] }> = [];
		for (const execution of setup.host.executions) {
			const outputs = execution.items.map((item) => item.json as unknown as Output);
			if (execution.run.status === 'error')
				failed.push({
					leads: outputs.map((output) => output.event.id),
					reasons: outputs.map((output) => output.recoveryReason),
				});
			else {
				const end = execution.run.data.resultData.runData[NEXT_NODE]?.[0]?.data?.main?.[0] ?? [];
				reached.push(...end.map((item) => (item.json as unknown as Output).event.id));
			}
		}
		const answered = setup.sim.control.deliveries().filter((delivery) => delivery.status === 200);
		return {
			leads: leads.map((lead) => lead.id),
			refused,
			reached,
			failed,
			answered: answered.length,
		};
	}

	it('a lead the workflow fails on stops no other: 10 chosen, a failed shared execution runs each of its leads again alone, marked', async () => {
		const { leads, refused, reached, failed, answered } = await burstWithRefusedLeads(10);
		const shared = failed.filter((execution) => execution.leads.length > 1);
		console.log(
			`150 creates, 10 per execution, 3 refused: ${reached.length} reached the end, ${failed.length} executions failed (${shared.length} shared, ${shared.reduce((sum, execution) => sum + execution.leads.length, 0)} leads in them)`,
		);
		expect(answered).toBe(150);
		// every lead the workflow does not fail on reaches its end exactly once
		const good = leads.filter((lead) => !refused.includes(lead));
		expect([...reached].sort()).toEqual([...good].sort());
		// the burst shared executions, and the refused leads failed some of them
		expect(shared.length).toBeGreaterThan(0);
		// in the end each refused lead stands failed alone, marked when its first run was shared
		const alone = failed.filter((execution) => execution.leads.length === 1);
		expect(alone.map((execution) => execution.leads[0]).sort()).toEqual([...refused].sort());
		const sharedLeads = new Set(shared.flatMap((execution) => execution.leads));
		for (const execution of alone)
			expect(execution.reasons[0]).toBe(
				sharedLeads.has(execution.leads[0])
					? SHARED_EXECUTION_FAILED_MARK.recoveryReason
					: undefined,
			);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('a lead the workflow fails on stops no other: left unset, each lead in an execution of its own', async () => {
		const { leads, refused, reached, failed } = await burstWithRefusedLeads();
		expect([...reached].sort()).toEqual(leads.filter((lead) => !refused.includes(lead)).sort());
		expect(failed).toEqual(refused.map((lead) => ({ leads: [lead], reasons: [undefined] })));
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('Fields to Watch: a lead run again after its shared execution failed shows the same from and to', async () => {
		const names = Array.from({ length: 60 }, (_, index) => `watch-${index}`);
		const refused = names[30];
		setup = await setUp(
			{
				events: ALL_TOPICS,
				watchedFields: ['status'],
				options: { leadsPerExecution: 10 },
			},
			BURST_DELIVERY,
			{
				node: { id: 'watch', name: 'Trigger', webhookId: 'watch' },
				next: { type: 'test.refuseLeads', parameters: { refuseFirstNames: [refused] } },
			},
		);
		const [first, second, ...leads] = setup.sim.control.seedLeads(
			['first', 'second', ...names].map((firstName) => ({ firstName, status: 'open' })),
		);
		await setup.host.activate();
		// Two executions start alone while few run (holdsBelow) and stay under way until the burst
		// was read; past them every run waits and shares (groups of 10, GATHER out of reach), so
		// the refused lead's execution is a shared one, whatever the machine's speed.
		const gather = GATHER.ms;
		GATHER.ms = 60_000;
		const releaseExecutions = setup.host.holdExecutions();
		try {
			for (const lead of [first, second])
				setup.sim.control.portalUpdateLead(lead.id, { status: 'won' });
			await eventually(() => setup.host.concurrency.now === 2, 'two executions under way');
			// the burst answered before any of it is read: no gap in it lets a group start short
			setup.sim.control.setFaults('GET /leads/:id', { held: true });
			for (const lead of leads) setup.sim.control.portalUpdateLead(lead.id, { status: 'won' });
			await setup.sim.control.waitForDeliveries(60_000);
			setup.sim.control.setFaults('GET /leads/:id', {});
			await eventually(
				() => setup.host.concurrency.now >= 2 + leads.length / 10,
				'the burst shared',
			);
		} finally {
			releaseExecutions();
			GATHER.ms = gather;
		}
		await setup.host.settle();
		const ran = items(setup.host) as Array<Output & { changes?: unknown; execution: number }>;
		const again = ran.filter(
			(item) => item.recoveryReason === SHARED_EXECUTION_FAILED_MARK.recoveryReason,
		);
		console.log(
			`60 status changes, 10 per execution, 1 refused: ${setup.host.executions.length} executions, ${again.length} leads run again alone`,
		);
		// the refused lead's execution carried 10: each of them ran again alone
		expect(again.length).toBe(10);
		for (const item of ran) expect(item.changes).toEqual({ status: { from: 'open', to: 'won' } });
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('the workflow updated during a burst: the new trigger takes over the executions under way, every event answered 200 runs once, none again', async () => {
		setup = await setUp(
			{
				events: ALL_TOPICS,
				fetchFullLead: true,
				// the update deletes the subscriptions and creates new ones: the events the service
				// no longer delivers are the recovery's (recovery.test.ts); this proves the hand-over
				recoverMissedEvents: false,
				options: { leadsPerExecution: 10 },
			},
			BURST_DELIVERY,
		);
		await setup.host.activate();
		setup.host.executionMs = 300;
		for (let index = 0; index < 200; index++) created(setup, `update${index}`);
		await eventually(() => setup.host.executions.length >= 3, 'a few executions');
		const underWayAtUpdate = setup.host.concurrency.now;
		// publishing a new version: n8n deletes the webhooks, closes the trigger, starts the new one
		await setup.host.activate('update');
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();
		const ran = items(setup.host);
		const answered = setup.sim.control
			.deliveries()
			.filter((delivery) => delivery.status === 200)
			.map((delivery) => delivery.leadId);
		const marked = ran.filter((item) => item.recoveryReason !== undefined).length;
		console.log(
			`200 creates, the workflow updated with ${underWayAtUpdate} executions under way: ${new Set(answered).size} events answered 200, ${ran.length} runs, ${marked} marked runs again`,
		);
		expect(underWayAtUpdate).toBeGreaterThan(0);
		expect(new Set(ran.map((item) => item.event.id))).toEqual(new Set(answered));
		expect(ran.map(eventOf)).toHaveLength(new Set(ran.map(eventOf)).size);
		expect(marked).toBe(0);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('one delivery at a time: every event runs alone, as with the setting at 1', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, options: { leadsPerExecution: 10 } },
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
				options: { leadsPerExecution: 8 },
			},
			{ delivery: { concurrency: 30, retryDelaysMs: [50, 100, 200, 400, 800] } },
		);
		await setup.host.activate();
		// every delivery is answered before any run starts; n8n dies at the 6th emit
		const { killed, answered } = await createThroughKill(setup, 120, 6);
		expect(answered.size).toBe(120);

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
