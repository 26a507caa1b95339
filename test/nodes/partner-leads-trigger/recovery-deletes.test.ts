import type { IDataObject } from 'n8n-workflow';

import { IdSketch, MAX_SKETCH_ID_BYTES } from '../../../nodes/shared/changes/idSketch';
import { packedBytes, packIds } from '../../../nodes/shared/changes/leadIds';
import { LogCapture } from '../../security/capture';
import type { Setup } from './helpers';
import { ALL_TOPICS, post, setUp, signed, storedSecret } from './helpers';
import {
	checkEnded,
	created,
	eventually,
	nextSecond,
	outputs,
	ran,
	startN8n,
	stopN8n,
	quickTimings,
} from './recovery-helpers';

/**
 * Deletes made while n8n was down or unreachable: the service has no replay, so the trigger
 * finds them by comparing lead ids with its last listing. Each runs once, marked, with the
 * lead id and no lead; a delete that ran (delivered or recovered) never runs again.
 */

describe('PartnerLeadsTrigger recovery of deletes by lead id', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	it('a lead deleted while n8n was down runs once as lead/delete, recovered, with its id and no lead', async () => {
		setup = await setUp(
			{ events: ALL_TOPICS, fetchFullLead: true },
			{ delivery: { maxAttempts: 1 } },
		);
		const [kept, deletedWhileDown, deletedLive] = ['kept', 'gone', 'live'].map((name) =>
			created(setup, name),
		);
		await setup.host.activate();
		await nextSecond();
		setup.sim.control.portalDeleteLead(deletedLive.id);
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host)).toEqual([`lead/delete ${deletedLive.id}`]);

		const persisted = await stopN8n(setup);
		setup.sim.control.portalDeleteLead(deletedWhileDown.id);
		await setup.sim.control.waitForDeliveries(10_000);
		await startN8n(setup, persisted);
		await eventually(() => setup.host.executions.length >= 1, 'the recovered delete');
		await checkEnded(setup);
		expect(outputs(setup.host)).toEqual([
			{
				event: { id: deletedWhileDown.id, topic: 'lead/delete', timestamp: expect.any(String) },
				recovered: true,
				recoveryReason: 'missed',
			},
		]);
		expect(ran(setup.host).join()).not.toContain(kept.id);

		// The service's late retry of the missed delete runs nothing.
		const [lost] = setup.sim.control
			.deliveries()
			.filter((attempt) => attempt.leadId === deletedWhileDown.id);
		const late = signed(
			storedSecret(setup, 'lead/delete'),
			deletedWhileDown.id,
			'lead/delete',
			lost.timestamp,
		);
		expect(await post(setup.host.webhookUrl(), late.rawBody, late.headers)).toBe(200);

		// Nor does another restart, or the checks after it.
		const again = await stopN8n(setup);
		await startN8n(setup, again);
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('a lead created since the last listing (its create ran live) and deleted while n8n was down runs its delete once, marked', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { delivery: { maxAttempts: 1 } });
		const listed = created(setup, 'listedAtBaseline');
		await setup.host.activate();
		await checkEnded(setup);
		await nextSecond();
		const fresh = created(setup, 'createdSinceListing');
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host)).toEqual([`lead/create ${fresh.id}`]);

		const persisted = await stopN8n(setup);
		setup.sim.control.portalDeleteLead(fresh.id);
		await setup.sim.control.waitForDeliveries(10_000);
		await startN8n(setup, persisted);
		await eventually(() => setup.host.executions.length >= 1, 'the recovered delete');
		await checkEnded(setup);
		expect(ran(setup.host)).toEqual([`lead/delete ${fresh.id} recovered`]);
		expect(outputs(setup.host)[0]).toEqual(
			expect.objectContaining({ recovered: true, recoveryReason: 'missed' }),
		);
		expect(ran(setup.host).join()).not.toContain(listed.id);

		// once run, it is settled: another restart and its checks run nothing
		await startN8n(setup, await stopN8n(setup));
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('n8n 1.x (no deduplication keys): a recovered run that finished with nothing saved after it runs again after a restart, marked', async () => {
		setup = await setUp(
			{ events: ['lead/delete'] },
			{ delivery: { maxAttempts: 1 } },
			{ deduplicationKeysKept: false },
		);
		const lead = created(setup, 'goneOn1x');
		await setup.host.activate();
		const persisted = await stopN8n(setup);
		setup.sim.control.portalDeleteLead(lead.id);
		await setup.sim.control.waitForDeliveries(10_000);
		await startN8n(setup, persisted);
		await eventually(() => setup.host.executions.length === 1, 'the recovered delete');
		await checkEnded(setup);
		// no delivery came after it, so its finish was never saved: the window docs/design/exactly-once.md names
		await startN8n(setup, await stopN8n(setup));
		await eventually(() => setup.host.executions.length === 1, 'the run again');
		expect(outputs(setup.host)).toEqual([
			expect.objectContaining({ recovered: true, recoveryReason: 'interrupted' }),
		]);
	});

	it('a delete that was delivered live is not recovered again, whatever n8n does after it', async () => {
		setup = await setUp({ events: ['lead/delete'] }, { delivery: { maxAttempts: 1 } });
		const lead = created(setup, 'deletedLive');
		await setup.host.activate();
		setup.sim.control.portalDeleteLead(lead.id);
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host)).toEqual([`lead/delete ${lead.id}`]);
		await startN8n(setup, await stopN8n(setup));
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('without lead/delete chosen no lead ids are kept and no delete runs', async () => {
		setup = await setUp(
			{ events: ['lead/create', 'lead/update'] },
			{ delivery: { maxAttempts: 1 } },
		);
		const lead = created(setup, 'deletedUnwatched');
		await setup.host.activate();
		const persisted = await stopN8n(setup);
		setup.sim.control.portalDeleteLead(lead.id);
		await startN8n(setup, persisted);
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
		const stored = setup.host.store.nodeData(setup.host.node.name).recovery as IDataObject;
		expect(stored.listedIds).toBeUndefined();
	});

	it('a portal whose ids take more bytes packed than their sketch is kept as the sketch, which does not grow with it: deletes live and while n8n was down each run once', async () => {
		setup = await setUp(
			{ events: ['lead/create', 'lead/delete'] },
			{ delivery: { maxAttempts: 1 } },
		);
		// Past where the sketch is the smaller: the personality's id shape decides how many leads
		// that is (packed, 24-hex ids take 16 bytes, UUIDs 21.3, numbers their digits and 1).
		const ids: string[] = [];
		const sketchSmaller = () =>
			IdSketch.storedBytes(IdSketch.of(ids)?.width ?? MAX_SKETCH_ID_BYTES) <
			packedBytes(packIds(ids));
		while (!sketchSmaller()) ids.push(...setup.sim.control.seedLeads(2_000).map((lead) => lead.id));
		const capture = new LogCapture();
		capture.start();
		await setup.host.activate();
		await checkEnded(setup);
		const stored = () => setup.host.store.nodeData(setup.host.node.name).recovery as IDataObject;
		expect(stored().listedIds).toBeUndefined();
		const sketchBytes = JSON.stringify(stored().listedSketch).length;
		expect(sketchBytes).toBeLessThanOrEqual(IdSketch.storedBytes(MAX_SKETCH_ID_BYTES));
		expect(sketchBytes).toBeLessThan(packedBytes(packIds(ids)));

		await nextSecond();
		const fresh = created(setup, 'createdSinceListing');
		setup.sim.control.portalDeleteLead(ids[0]);
		await setup.sim.control.waitForDeliveries(10_000);
		await setup.host.settle();
		expect(ran(setup.host).sort()).toEqual(
			[`lead/create ${fresh.id}`, `lead/delete ${ids[0]}`].sort(),
		);

		const persisted = await stopN8n(setup);
		const goneWhileDown = [ids[1], ids[ids.length - 1], fresh.id];
		for (const id of goneWhileDown) setup.sim.control.portalDeleteLead(id);
		await setup.sim.control.waitForDeliveries(10_000);
		await startN8n(setup, persisted);
		await eventually(() => setup.host.executions.length >= 3, 'the recovered deletes');
		await checkEnded(setup);
		expect(ran(setup.host).sort()).toEqual(
			goneWhileDown.map((id) => `lead/delete ${id} recovered`).sort(),
		);
		// the listing kept after the check is a sketch again, the same size as before
		expect(JSON.stringify(stored().listedSketch).length).toBe(sketchBytes);

		await startN8n(setup, await stopN8n(setup));
		await checkEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
		capture.stop();
		const warnings = capture.records.filter((record) => record.channel === 'n8n logger.warn');
		expect(warnings).toEqual([]);
	}, 300_000);
});
