/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { randomUUID } from 'node:crypto';

import { TriggerHost } from '../../harness/webhooks';
import { RUN_CONCURRENCY } from '../../../nodes/PartnerLeadsTrigger/runs/places';
import type { LeadEvent } from '../../../nodes/shared/leadItem';
import {
	eventMark,
	eventTimeSeconds,
	SeenEvents,
} from '../../../nodes/PartnerLeadsTrigger/state/seenEvents';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import {
	created,
	createThroughKill,
	outputs,
	quickTimings,
	restartAfterKill,
} from './recovery-helpers';

/**
 * A burst (a partner's bulk import): the service sends hundreds of deliveries at once and
 * retries briefly. The trigger accepts each one as soon as n8n has saved it, runs them a few at
 * a time, and a hard kill in the middle loses none of what it answered.
 */

/** The events of a host's executions, as `topic id timestamp`, with each run's mark. */
function runsOf(host: TriggerHost): Array<{ event: string; reason?: string }> {
	return outputs(host).map((output) => ({
		event: `${output.event.topic} ${output.event.id} ${output.event.timestamp}`,
		reason: output.recoveryReason,
	}));
}

describe('PartnerLeadsTrigger under a burst of deliveries', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it('300 creates at once: each delivery answered 200 at its first attempt and only once its event was saved, each event run once, a few at a time', async () => {
		// a service that sends 40 at once and gives up after 5 quick retries
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true },
			{ delivery: { concurrency: 40, retryDelaysMs: [50, 100, 200, 400, 800] } },
		);
		await setup.host.activate();
		// a 200 promises that the event is in the database: checked as each answer goes out
		const answeredUnsaved: string[] = [];
		setup.host.onAnswer = (body, status) => {
			const event = body as LeadEvent;
			if (status !== 200 || !event.timestamp) return;
			// as a run in flight (its key), or as an event seen that a process reading it anew knows
			const mark = eventMark(event, eventTimeSeconds(event.timestamp) ?? 0);
			const stored = structuredClone(setup.host.store.nodeData(setup.host.node.name));
			const inFlight = JSON.stringify(stored.inFlight ?? {}).includes(mark.key);
			const seen = new SeenEvents(stored, randomUUID(), { maxAgeSeconds: 72 * 3600 });
			if (!inFlight && seen.recall(mark) !== 'seen')
				answeredUnsaved.push(`${event.topic} ${event.id}`);
		};
		// under a burst n8n's saves queue: each delivery's save takes 20 ms, each run 100 ms
		setup.host.store.deliverySaveMs = 20;
		setup.host.executionMs = 100;
		const leads = Array.from({ length: 300 }, (_, index) => created(setup, `burst${index}`));
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();
		expect(answeredUnsaved).toEqual([]);

		const deliveries = setup.sim.control.deliveries();
		const firstAttempts = deliveries.filter((delivery) => delivery.attempt === 1);
		expect(firstAttempts).toHaveLength(300);
		expect(firstAttempts.filter((delivery) => delivery.status === 200)).toHaveLength(300);
		expect(deliveries).toHaveLength(300);
		const ran = outputs(setup.host).map((output) => output.event.id);
		expect(ran.sort()).toEqual(leads.map((lead) => lead.id).sort());
		expect(setup.host.concurrency.max).toBeLessThanOrEqual(RUN_CONCURRENCY.runs);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('a hard kill in the middle of a burst: every event answered 200 runs after the restart, none twice unless marked', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, recoverMissedEvents: false },
			{ delivery: { concurrency: 20, retryDelaysMs: [50, 100, 200, 400, 800] } },
		);
		await setup.host.activate();
		// every delivery is answered before any run starts; n8n dies at the 25th emit
		const { killed, answered } = await createThroughKill(setup, 120, 25);
		expect(answered.size).toBe(120);

		const host = await restartAfterKill(setup);
		await host.settle();
		const runs = [...runsOf(killed), ...runsOf(host)];
		const ranEvents = new Set(runs.map((run) => run.event));
		const lost = [...answered].filter((event) => !ranEvents.has(event));
		expect(lost).toEqual([]);
		const unmarked = runs.filter((run) => run.reason !== 'interrupted').map((run) => run.event);
		expect(unmarked.length).toBe(new Set(unmarked).size);
		// accepted and not started at the kill (95 or more): run after the restart as first runs, unmarked
		const firstRunsAfter = runsOf(host).filter((run) => run.reason === undefined);
		expect(firstRunsAfter.length).toBeGreaterThanOrEqual(120 - 25);
		expect(host.runsInFlight()).toBe(0);
	});
});

describe('PartnerLeadsTrigger: what a stream of deliveries writes', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 60_000, settleMs: 0, tickMs: 10 });

	it('16 deliveries at a time, each waited for: about one save of static data per event, and the last one saves every finish', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true },
			{ delivery: { concurrency: 16 } },
		);
		await setup.host.activate();
		const savesBefore = setup.host.store.saves;
		for (let index = 0; index < 200; index++) created(setup, `stream${index}`);
		await setup.sim.control.waitForDeliveries(60_000);
		await setup.host.settle();
		expect(outputs(setup.host)).toHaveLength(200);
		const saves = setup.host.store.saves - savesBefore;
		console.log(`a stream of 200 deliveries, 16 at a time: ${saves} saves of static data`);
		// one save per run (its emit), fewer answers' saves: never the two saves per event of before
		expect(saves).toBeLessThan(200 * 1.5);
		// what the database holds: every run finished, none left to run again after a kill
		const stored = setup.host.store.nodeData(setup.host.node.name);
		expect((stored.inFlight as { runs: unknown[] }).runs).toEqual([]);
	});
});
