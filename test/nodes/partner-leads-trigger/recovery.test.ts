import { sleep } from 'n8n-workflow';

import { RECOVERY_TIMING } from '../../../nodes/PartnerLeadsTrigger/recovery/timing';
import { TriggerHost } from '../../harness/webhooks';
import type { Setup } from './helpers';
import { ALL_TOPICS, redeliver, setUp } from './helpers';
import {
	checkEnded,
	created,
	eventually,
	listRequests,
	nextSecond,
	outputs,
	ran,
	startN8n,
	stopN8n,
	quickTimings,
} from './recovery-helpers';

/**
 * Recovery of missed events: n8n stopped longer than the service retried, the portal changed
 * meanwhile, n8n started again. The simulator gives up after one attempt (no retries), so
 * every delivery made while the trigger's address was closed is lost for good.
 */

describe('PartnerLeadsTrigger recovery of missed events', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it('after a stop longer than the service retried, runs each missed create and update once, and nothing else', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		const untouched = created(setup, 'untouched');
		const updatedWhileDown = created(setup, 'olderLead');
		const deletedWhileDown = created(setup, 'deleted');
		await setup.host.activate();
		await nextSecond();

		const live = created(setup, 'live');
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host)).toEqual([`lead/create ${live.id}`]);

		const persisted = await stopN8n(setup);
		const missedA = created(setup, 'missedA');
		const missedB = created(setup, 'missedB');
		setup.sim.control.portalUpdateLead(updatedWhileDown.id, { value: 10 });
		setup.sim.control.portalUpdateLead(live.id, { value: 20 });
		setup.sim.control.portalDeleteLead(deletedWhileDown.id);
		await setup.sim.control.waitForDeliveries(10_000);
		const lost = setup.sim.control.deliveries().filter((attempt) => attempt.status !== 200);
		expect(lost).toHaveLength(5);

		await startN8n(setup, persisted);
		await eventually(
			() => setup.host.executions.length >= 5,
			() => `five recovered executions, got ${JSON.stringify(ran(setup.host))}`,
		);
		await setup.host.settle();
		expect(ran(setup.host).sort()).toEqual(
			[
				`lead/create ${missedA.id} recovered`,
				`lead/create ${missedB.id} recovered`,
				`lead/update ${updatedWhileDown.id} recovered`,
				`lead/update ${live.id} recovered`,
				`lead/delete ${deletedWhileDown.id} recovered`,
			].sort(),
		);
		// The same output as a live delivery: the event and the full lead, as it is now.
		const update = outputs(setup.host).find((output) => output.event.id === live.id);
		expect(update?.lead).toMatchObject({ id: live.id, value: 20 });
		expect(update?.event.timestamp).toBe(setup.sim.control.getLead(live.id)?.updatedAt);
		expect(ran(setup.host).join()).not.toContain(untouched.id);

		// The service's late retry of a recovered change runs nothing.
		const retried = lost.find((attempt) => attempt.leadId === missedA.id);
		expect(await redeliver(setup, missedA.id, 'lead/create', retried?.timestamp)).toBe(200);
		await setup.host.settle();
		expect(setup.host.executions).toHaveLength(5);

		// A change afterwards is delivered live and runs once.
		setup.sim.control.portalUpdateLead(missedA.id, { value: 30 });
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host).slice(5)).toEqual([`lead/update ${missedA.id}`]);

		// Another restart recovers nothing more.
		const stopped = await stopN8n(setup);
		setup.sim.control.resetStats();
		await startN8n(setup, stopped);
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('while n8n is up but unreachable, the periodic check runs the missed events once (Fetch Full Lead off)', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: false, options: { checkIntervalMinutes: 0.01 } },
			{ delivery: { retryDelaysMs: [] } },
		);
		await setup.host.activate();
		await nextSecond();
		setup.sim.control.setDeliveryFaults({ unreachable: true });
		const missed = created(setup, 'unreachable');
		await setup.sim.control.waitForDeliveries(10_000);
		setup.sim.control.setDeliveryFaults({});
		await eventually(() => setup.host.executions.length >= 1, 'the recovered execution');
		await setup.host.settle();
		expect(outputs(setup.host)).toEqual([
			{
				event: { id: missed.id, topic: 'lead/create', timestamp: missed.updatedAt },
				recovered: true,
				recoveryReason: 'missed',
			},
		]);
		// The event time alone decides here: a late delivery of the same change runs nothing.
		const [lost] = setup.sim.control.deliveries();
		expect(await redeliver(setup, missed.id, 'lead/create', lost.timestamp)).toBe(200);
		// Later checks find nothing more.
		setup.sim.control.resetStats();
		await eventually(() => listRequests(setup) >= 3, 'three more checks');
		await setup.host.settle();
		expect(setup.host.executions).toHaveLength(1);
	});

	it('a newly activated workflow runs nothing for the leads the portal already holds', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		for (let index = 0; index < 5; index++) created(setup, `existing${index}`);
		await setup.host.activate();
		const persisted = await stopN8n(setup);
		setup.sim.control.resetStats();
		await startN8n(setup, persisted);
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('a restart in the middle of a recovery starts every missed lead exactly once', async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 1 } });
		await setup.host.activate();
		await nextSecond();
		const persisted = await stopN8n(setup);
		const missed = Array.from({ length: 6 }, (_, index) => created(setup, `missed${index}`));
		await setup.sim.control.waitForDeliveries(10_000);

		setup.host = await TriggerHost.start(setup.harness, persisted);
		setup.host.crashAfterEmits = 2;
		await setup.host.activate('init');
		await eventually(() => setup.host.store.frozen, 'the crash');
		await setup.host.settle();
		const before = ran(setup.host);
		expect(before).toHaveLength(2);

		setup.host.store.frozen = false;
		await startN8n(setup, await stopN8n(setup));
		await eventually(() => before.length + setup.host.executions.length >= 6, 'the rest');
		await setup.host.settle();
		const all = [...before, ...ran(setup.host)].sort();
		expect(all).toEqual(missed.map((lead) => `lead/create ${lead.id} recovered`).sort());
	});

	it('with Recover Missed Events off, a restart recovers nothing and reads no list', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, recoverMissedEvents: false },
			{ delivery: { maxAttempts: 1 } },
		);
		await setup.host.activate();
		await nextSecond();
		const persisted = await stopN8n(setup);
		created(setup, 'missed');
		await setup.sim.control.waitForDeliveries(10_000);
		setup.sim.control.resetStats();
		await startN8n(setup, persisted);
		await sleep(300);
		await setup.host.settle();
		expect(setup.host.executions).toHaveLength(0);
		expect(listRequests(setup)).toBe(0);
	});

	it('"listen for test event" yields the delivered event and recovers nothing', async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 1 } });
		await setup.host.listenForTestEvent();
		const before = setup.host.store.load();
		const lead = created(setup, 'tested');
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(setup.host.executions.map((execution) => execution.mode)).toEqual(['manual']);
		expect(outputs(setup.host)).toEqual([
			{
				event: { id: lead.id, topic: 'lead/create', timestamp: expect.any(String) },
				lead: expect.objectContaining({ id: lead.id }),
			},
		]);
		expect(listRequests(setup)).toBe(0);
		expect(setup.host.store.load()).toEqual(before);
	});
});

describe('PartnerLeadsTrigger checks for missed events that come early', () => {
	let setup: Setup;

	// the count of runs that brings a check forward, small enough for a test; no spacing
	quickTimings(() => setup, { settleMs: 0, tickMs: 10, earlyAfterRuns: 5, earlySpacingMs: 0 });

	it('once that many runs were recorded since the last check, the next one comes before its interval and runs nothing again', async () => {
		// the baseline is listed at activation: the next check is due in 6 hours
		setup = await setUp({ events: ALL_TOPICS });
		await setup.host.activate();
		await nextSecond();
		const afterBaseline = listRequests(setup);
		for (let index = 0; index < 4; index++) created(setup, `before${index}`);
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		// four runs: no check is due, however long this waits
		await sleep(200);
		expect(listRequests(setup)).toBe(afterBaseline);

		created(setup, 'fifth');
		await setup.sim.control.waitForDeliveries(10_000);
		await eventually(() => listRequests(setup) > afterBaseline, 'a check brought forward');
		await checkEnded(setup);
		expect(ran(setup.host)).toHaveLength(5);
		expect(ran(setup.host).join()).not.toContain('recovered');
	});
});

describe('PartnerLeadsTrigger published on a portal last changed days ago', () => {
	let setup: Setup;

	// a settle as the node's (shortened): the baseline keeps as run the leads changed within it
	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 500, tickMs: 10 });

	it('runs none of the leads changed before Ignore Events Older Than at its next checks', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		// changed four days ago, one moment apart: the newest changes the baseline sees
		const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3_600_000).toISOString();
		const stamps = { createdAt: fourDaysAgo, updatedAt: fourDaysAgo };
		setup.sim.control.seedLeads(Array.from({ length: 5 }, () => stamps));
		await setup.host.activate();
		await checkEnded(setup);
		const persisted = await stopN8n(setup);
		setup.sim.control.resetStats();
		await startN8n(setup, persisted);
		await checkEnded(setup);
		// a change judged too recent would be checked again a settle and a second later
		await sleep(RECOVERY_TIMING.settleMs + 3_000);
		await checkEnded(setup);
		expect(listRequests(setup)).toBeGreaterThan(0);
		expect(setup.host.executions).toHaveLength(0);
	});
});

describe('PartnerLeadsTrigger follow-ups while changes keep coming', () => {
	let setup: Setup;

	quickTimings(() => setup, {
		firstCheckDelayMs: 50,
		settleMs: 1_000,
		tickMs: 10,
		earlySpacingMs: 120_000,
	});

	it('a follow-up that finds new changes too recent to judge leaves the next to the early checks spacing (each reads the whole list)', async () => {
		setup = await setUp({ events: ['lead/create'] }, { delivery: { maxAttempts: 1 } });
		const [lead] = setup.sim.control.seedLeads(1);
		await setup.host.activate();
		await checkEnded(setup);
		const persisted = await stopN8n(setup);
		setup.sim.control.resetStats();
		// an update every 50 ms (lead/update is not chosen: none is delivered), through the check
		// after the restart, its follow-up and the time several more would have taken
		let updating = true;
		const updates = (async () => {
			for (let n = 0; updating && n < 2_000; n++) {
				setup.sim.control.portalUpdateLead(lead.id, { firstName: `Update${n}` });
				await sleep(50);
			}
		})();
		await startN8n(setup, persisted);
		// the check after the restart: its requests once none came for 800 ms (a follow-up is 2 s away)
		await eventually(() => listRequests(setup) > 0, 'the check after the restart');
		let perCheck = -1;
		for (let look = 0; look < 50 && perCheck !== listRequests(setup); look++) {
			perCheck = listRequests(setup);
			await sleep(800);
		}
		await eventually(() => listRequests(setup) > perCheck, 'the follow-up check');
		await sleep(4 * (RECOVERY_TIMING.settleMs + 1_000));
		updating = false;
		await updates;
		expect(listRequests(setup)).toBe(2 * perCheck);
		expect(setup.host.executions).toHaveLength(0);
	});
});
