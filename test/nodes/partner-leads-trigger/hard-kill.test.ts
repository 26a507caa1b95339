import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { TriggerHost } from '../../harness/webhooks';
import { LogCapture } from '../../security/capture';
import { forgetTriggerNode } from '../../../nodes/shared/state/processMemory';
import { MAX_RUN_ATTEMPTS } from '../../../nodes/PartnerLeadsTrigger/runs/queue';
import {
	eventMark,
	eventTimeSeconds,
	SeenEvents,
} from '../../../nodes/PartnerLeadsTrigger/state/seenEvents';
import type { LeadEvent } from '../../../nodes/shared/leadItem';
import type { Setup } from './helpers';
import { redeliver, setUp } from './helpers';
import { created, eventually, outputs, quickTimings, restartAfterKill } from './recovery-helpers';

/**
 * A hard kill of n8n (the OOM killer, a power cut): the process stops at any instruction and
 * keeps nothing of its memory. A delivery is answered 200 only after its execution finished and
 * that was saved; a run the kill interrupted runs again when n8n is back, marked as a re-run;
 * a run that finished and was answered never runs again.
 */

describe('PartnerLeadsTrigger through a hard kill of n8n', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10 });

	it('a delivery is answered 200 only once its execution finished, and that is saved before the answer', async () => {
		setup = await setUp({ events: ['lead/create'], fetchFullLead: true });
		await setup.host.activate();
		// what the database holds as the 200 goes out, read as a process started anew reads it
		const atAnswer: Array<{ finished: number; seen: string; inFlight: boolean }> = [];
		setup.host.onAnswer = (body, status) => {
			if (status !== 200) return;
			const event = body as LeadEvent;
			const mark = eventMark(event, eventTimeSeconds(event.timestamp) ?? 0);
			const stored = structuredClone(setup.host.store.nodeData(setup.host.node.name));
			const seen = new SeenEvents(stored, randomUUID(), { maxAgeSeconds: 72 * 3600 });
			atAnswer.push({
				finished: setup.host.executions.length,
				seen: seen.recall(mark),
				inFlight: JSON.stringify(stored.inFlight ?? {}).includes(mark.key),
			});
		};
		const lead = created(setup, 'answered');
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(atAnswer).toEqual([{ finished: 1, seen: 'seen', inFlight: false }]);
		expect(outputs(setup.host).map((output) => output.event.id)).toEqual([lead.id]);
		expect(setup.host.executions[0].mode).toBe('trigger');
		const [delivery] = setup.sim.control.deliveries();
		expect(delivery.acknowledged).toBe(true);
		// the database holds the event as run and nothing in flight
		const stored = setup.host.store.nodeData(setup.host.node.name);
		expect((stored.inFlight as IDataObject).runs).toEqual([]);
		expect(String((stored.recentEvents as IDataObject).byTenMinutes)).not.toBe('');
	});

	it('a kill after the run started and before it finished: the run is started again once, marked, and the retry runs nothing more', async () => {
		setup = await setUp(
			{ events: ['lead/create'], fetchFullLead: true },
			{ delivery: { maxAttempts: 1 } },
		);
		await setup.host.activate();
		setup.host.dieAfterEmits = 1;
		const lead = created(setup, 'interrupted');
		await setup.sim.control.waitForDeliveries(10_000);
		expect(setup.host.dead).toBe(true);
		expect(setup.host.executions).toHaveLength(0);
		const [lost] = setup.sim.control.deliveries();
		expect(lost.acknowledged).toBe(false);

		const [[interrupted]] = setup.host.emitted;
		const host = await restartAfterKill(setup);
		await eventually(() => host.executions.length === 1, 'the re-run');
		expect(outputs(host)).toEqual([
			expect.objectContaining({
				event: { id: lead.id, topic: 'lead/create', timestamp: lost.timestamp },
				lead: expect.objectContaining({ id: lead.id }),
				recovered: true,
				recoveryReason: 'interrupted',
			}),
		]);
		// the run again gives the item of the run the kill interrupted, marked
		expect(outputs(host)[0]).toEqual({
			...interrupted.json,
			recovered: true,
			recoveryReason: 'interrupted',
		});
		// The service's retry of the event (it never got a 200) runs nothing more.
		expect(await redeliver(setup, lead.id, 'lead/create', lost.timestamp)).toBe(200);
		// and neither does the first check for missed events
		await sleep(300);
		await host.settle();
		expect(host.executions).toHaveLength(1);
		expect((host.store.nodeData(host.node.name).inFlight as IDataObject).runs).toEqual([]);
	});

	it('a kill after a run finished and was answered: nothing runs again after the restart', async () => {
		setup = await setUp({ events: ['lead/create', 'lead/update'], fetchFullLead: true });
		await setup.host.activate();
		const lead = created(setup, 'finished');
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		setup.host.dieAfterEmits = 1; // the next emit, never to come: only memory is lost
		const host = await restartAfterKill(setup);
		await sleep(500);
		await host.settle();
		expect(host.executions).toHaveLength(0);
		expect(setup.sim.control.deliveries().every((attempt) => attempt.acknowledged)).toBe(true);
		void lead;
	});

	it('the retry of an interrupted run that reaches n8n before its trigger is back is asked to come back later', async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 1 } });
		await setup.host.activate();
		setup.host.dieAfterEmits = 1;
		const lead = created(setup, 'early');
		await setup.sim.control.waitForDeliveries(10_000);
		const [lost] = setup.sim.control.deliveries();
		const killed = setup.host;
		const persisted = killed.persisted();
		await killed.close();
		forgetTriggerNode(killed.workflow().id, killed.node.id);
		killed.store.frozen = false;
		// n8n registers the webhooks before it starts the triggers
		setup.host = await TriggerHost.start(setup.harness, persisted);
		setup.host.registerRoute();
		expect(await redeliver(setup, lead.id, 'lead/create', lost.timestamp)).toBe(503);
		expect(setup.host.executions).toHaveLength(0);
		await setup.host.activate('init');
		await eventually(() => setup.host.executions.length === 1, 'the re-run');
		expect(await redeliver(setup, lead.id, 'lead/create', lost.timestamp)).toBe(200);
		await setup.host.settle();
		expect(outputs(setup.host).map((output) => output.recoveryReason)).toEqual(['interrupted']);
	});

	it(`a run interrupted ${MAX_RUN_ATTEMPTS} times is given up with an error in the log`, async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 1 } });
		await setup.host.activate();
		setup.host.dieAfterEmits = 1;
		created(setup, 'poison');
		await setup.sim.control.waitForDeliveries(10_000);
		for (let attempt = 2; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
			const persisted = setup.host.persisted();
			await setup.host.close();
			forgetTriggerNode(setup.host.workflow().id, setup.host.node.id);
			setup.host.store.frozen = false;
			setup.host = await TriggerHost.start(setup.harness, persisted);
			setup.host.dieAfterEmits = 1; // the re-run kills n8n again
			await setup.host.activate('init');
			await eventually(() => setup.host.dead, `the kill during attempt ${attempt}`);
		}
		const capture = new LogCapture();
		capture.start();
		const errors = () =>
			capture.records
				.filter((record) => record.channel === 'n8n logger.error')
				.map((record) => String(record.args[0]));
		const host = await restartAfterKill(setup);
		await eventually(() => errors().length > 0, 'the error');
		capture.stop();
		expect(errors()[0]).toContain(`interrupted ${MAX_RUN_ATTEMPTS} times`);
		await host.settle();
		expect(host.executions).toHaveLength(0);
		expect((host.store.nodeData(host.node.name).inFlight as IDataObject).runs).toEqual([]);
	});
});
