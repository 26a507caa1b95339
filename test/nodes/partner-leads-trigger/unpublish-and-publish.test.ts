import { TriggerHost } from '../../harness/webhooks';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp } from './helpers';
import {
	created,
	eventually,
	outputs,
	quickTimings,
	restartAfterKill,
	type Output,
} from './recovery-helpers';
import { forgetTriggerNode } from '../../../nodes/shared/state/processMemory';
import { LogCapture } from '../../security/capture';

/**
 * What a user does on day 200: a partner's import is under way and the user unpublishes the
 * workflow (to fix a node, or to pause it), then publishes it again. Every event the trigger
 * answered 200 runs once; those it had not run yet run at the publish, marked "publishedAgain".
 */

/** `topic id timestamp` of each run of the hosts, with its mark. */
function runs(...hosts: TriggerHost[]): Array<{ event: string; reason?: string }> {
	return hosts.flatMap((host) =>
		outputs(host).map((output: Output) => ({
			event: `${output.event.topic} ${output.event.id} ${output.event.timestamp}`,
			reason: output.recoveryReason,
		})),
	);
}

/** The events the service saw answered 200. */
function answered(setup: Setup): Set<string> {
	return new Set(
		setup.sim.control
			.deliveries()
			.filter((delivery) => delivery.status === 200)
			.map((delivery) => `${delivery.topic} ${delivery.leadId} ${delivery.timestamp}`),
	);
}

/** An import of `count` leads, all answered before any runs (the service stalls lead reads meanwhile). */
async function importAnswered(setup: Setup, count: number): Promise<Set<string>> {
	setup.sim.control.setFaults('GET /leads/:id', { held: true });
	for (let index = 0; index < count; index++) created(setup, `import${index}`);
	await setup.sim.control.waitForDeliveries(60_000);
	return answered(setup);
}

describe('PartnerLeadsTrigger: unpublished during an import and published again', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 60_000, settleMs: 0, tickMs: 10 });

	it('every event answered 200 runs once: those under way finish at the unpublish, the rest run at the publish, marked publishedAgain', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true },
			{ delivery: { concurrency: 20, retryDelaysMs: [50, 100, 200] } },
		);
		await setup.host.activate();
		const accepted = await importAnswered(setup, 60);
		expect(accepted.size).toBe(60);
		// the workflow's last node answers in 200 ms (a CRM)
		setup.host.executionMs = 200;
		setup.sim.control.setFaults('GET /leads/:id', {});
		await eventually(() => setup.host.executions.length >= 20, 'a third of the import run');
		await setup.host.deactivate();
		const beforePublish = setup.host.executions.length;
		expect(setup.host.concurrency.now).toBe(0);
		const stored = setup.host.store.nodeData(setup.host.node.name);
		// what waits is in the database, not only in memory
		expect((stored.inFlight as { runs: unknown[] }).runs).toHaveLength(60 - beforePublish);

		await setup.host.activate('activate');
		await setup.host.settle();
		const all = runs(setup.host);
		expect(all).toHaveLength(60);
		expect(new Set(all.map((run) => run.event))).toEqual(accepted);
		expect(all.slice(0, beforePublish).every((run) => run.reason === undefined)).toBe(true);
		expect(all.slice(beforePublish).every((run) => run.reason === 'publishedAgain')).toBe(true);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('published again after Ignore Events Older Than: the older events are dropped and n8n logs how many', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, options: { maxEventAgeHours: 1 } },
			{ delivery: { concurrency: 20 } },
		);
		await setup.host.activate();
		const accepted = await importAnswered(setup, 10);
		expect(accepted.size).toBe(10);
		await setup.host.deactivate();
		setup.sim.control.setFaults('GET /leads/:id', {});
		const capture = new LogCapture();
		capture.start();
		// two hours later
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now + 2 * 60 * 60_000);
		try {
			await setup.host.activate('activate');
			await setup.host.settle();
		} finally {
			clock.mockRestore();
			capture.stop();
		}
		expect(setup.host.executions).toHaveLength(0);
		const warnings = capture.records
			.filter((record) => record.channel === 'n8n logger.warn')
			.map((record) => String(record.args[0]));
		expect(warnings).toEqual([
			'Partner Referral Service Trigger dropped 10 lead event(s) accepted before the workflow was unpublished: they are older than Ignore Events Older Than (1 hours)',
		]);
		expect(setup.host.runsInFlight()).toBe(0);
	});

	it('a hard kill in the middle of the unpublish: every event answered 200 runs after the restart, none twice unless marked', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true, recoverMissedEvents: false },
			{ delivery: { concurrency: 20, retryDelaysMs: [50, 100, 200] } },
		);
		await setup.host.activate();
		const accepted = await importAnswered(setup, 40);
		setup.host.executionMs = 300;
		setup.sim.control.setFaults('GET /leads/:id', {});
		await eventually(() => setup.host.concurrency.now > 0, 'executions under way');
		// the unpublish waits for the executions under way; n8n is killed meanwhile
		const unpublishing = setup.host.deactivate().catch(() => undefined);
		setup.host.killNow();
		await unpublishing;
		const killed = setup.host;
		const host = await restartAfterKill(setup);
		await host.settle();
		const all = runs(killed, host);
		expect([...accepted].filter((event) => !all.some((run) => run.event === event))).toEqual([]);
		const unmarked = all.filter((run) => run.reason !== 'interrupted').map((run) => run.event);
		expect(unmarked.length).toBe(new Set(unmarked).size);
		expect(host.runsInFlight()).toBe(0);
	});

	it('a lead updated during the import with Fields to Watch: its run at the publish reports the change', async () => {
		setup = await setUp(
			{ events: ['lead/update'], fetchFullLead: true, watchedFields: ['value'] },
			{ delivery: { concurrency: 4 } },
		);
		const lead = created(setup, 'watched');
		await setup.host.activate();
		await setup.sim.control.waitForDeliveries(10_000);
		setup.sim.control.setFaults('GET /leads/:id', { held: true });
		setup.sim.control.portalUpdateLead(lead.id, { value: 500 });
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.deactivate();
		setup.sim.control.setFaults('GET /leads/:id', {});
		// n8n restarted meanwhile: only the database remembers
		forgetTriggerNode(setup.host.workflow().id, setup.host.node.id);

		await setup.host.activate('activate');
		await setup.host.settle();
		const [run] = outputs(setup.host) as Array<Output & { changes?: unknown }>;
		expect(run?.recoveryReason).toBe('publishedAgain');
		expect(run?.changes).toMatchObject({ value: { to: 500 } });
	});
});
