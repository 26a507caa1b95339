/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Recovery in queue mode: deliveries lost while n8n was unreachable, then the main process
 * restarts (a delete among them, of a lead created since the last listing). Only the leader
 * recovers; the recovered executions run on the workers; a late
 * retry of a recovered event, whichever webhook process it reaches, runs nothing; a live
 * event afterwards runs once.
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { signedDelivery, subscriptionsOf, triggerOutputs } from '../lib/lead-trigger';
import { sleep } from '../lib/wait';
import type { QueueScenario } from './context';
import { activate, deliverOnceRegistered } from './restart-and-crash';

export const recoveryInQueueMode: QueueScenario = {
	name: 'queue mode: recovery of deliveries lost while unreachable: each missed change runs once after the main process restarts, a late retry through any webhook process runs nothing',
	async run(context) {
		const { rest, sim, cluster, figures } = context;
		const [existing] = sim.control.seedLeads(1);
		const { created, webhookId } = await activate(context);
		await sleep(1_100); // lead times have whole seconds under some services: past the activation's
		const subscriptions = subscriptionsOf(sim, webhookId);
		const onUpdate = subscriptions.find((subscription) => subscription.topic === 'lead/update')!;
		const onCreate = subscriptions.find((subscription) => subscription.topic === 'lead/create')!;
		const live = await deliverOnceRegistered(
			onUpdate,
			existing!.id,
			new Date().toISOString(),
			"the trigger's webhook to be registered",
		);
		assert.equal(live.status, 200, `the live delivery got ${live.status}`);
		await waitForExecutions(rest, created.id, 1, 60_000);
		// created after the last listing: known only from its create, run through a webhook process
		const gone = sim.control.portalCreateLead({ firstName: 'Live', lastName: 'Gone' });
		await sim.control.waitForDeliveries(60_000);
		await waitForExecutions(rest, created.id, 2, 60_000);

		sim.control.setDeliveryFaults({ unreachable: true });
		const before = new Set(sim.control.deliveries().map((attempt) => attempt.deliveryId));
		const a = sim.control.portalCreateLead({ firstName: 'Missed', lastName: 'A' });
		const b = sim.control.portalCreateLead({ firstName: 'Missed', lastName: 'B' });
		await sleep(50);
		sim.control.portalUpdateLead(existing!.id, { value: 21 });
		sim.control.portalDeleteLead(gone.id);
		await sim.control.waitForDeliveries(60_000);
		sim.control.setDeliveryFaults({});
		const lost = sim.control.deliveries().filter((attempt) => !before.has(attempt.deliveryId));
		assert.ok(lost.length >= 4 && lost.every((attempt) => !attempt.acknowledged));

		await cluster.main.restart();
		const backAt = Date.now();
		await rest.login(context.owner.email, context.owner.password).catch(() => undefined);
		await waitForExecutions(rest, created.id, 6, 180_000);
		figures.set('recovered executions after the main process was back (ms)', Date.now() - backAt);
		await sleep(3_000); // give a wrongly started run time to show up

		const outputs = async () => await triggerOutputs(rest, created.id);
		const recovered = (await outputs()).filter((output) => output.recovered === true);
		assert.deepEqual(
			recovered.map((output) => `${output.event.topic} ${output.event.id}`).sort(),
			[
				`lead/create ${a.id}`,
				`lead/create ${b.id}`,
				`lead/update ${existing!.id}`,
				`lead/delete ${gone.id}`,
			].sort(),
			'the recovered executions',
		);

		// The late retry, sent once per webhook process (the load balancer takes turns).
		const lostCreate = lost.find((attempt) => attempt.leadId === a.id)!;
		for (let turn = 0; turn < cluster.webhooks.length; turn++) {
			const late = await signedDelivery(onCreate, a.id, lostCreate.timestamp);
			assert.equal(late.status, 200, `the late retry got ${late.status}`);
		}
		await sleep(3_000);
		assert.equal((await rest.listExecutions(created.id)).length, 6, 'a late retry ran');

		sim.control.portalUpdateLead(a.id, { value: 22 });
		await sim.control.waitForDeliveries(60_000);
		await waitForExecutions(rest, created.id, 7, 60_000);
		await sleep(2_000);
		const all = await outputs();
		assert.equal(all.length, 7, `expected 7 executions, got ${all.length}`);
		assert.equal(all.filter((output) => output.recovered === true).length, 4);
		await rest.deactivateWorkflow(created);
	},
};
