/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * n8n stopped for longer than the service retried: the portal changed meanwhile (creates,
 * updates, deletes: one of a lead created since the trigger last listed the leads) and every
 * delivery was given up. When n8n is back the trigger recovers each missed create, update and
 * delete once, the unchanged leads do not run, a late retry of
 * a recovered event does not run again, and a live event afterwards runs once.
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { activateLeadTrigger, signedDelivery, triggerOutputs } from '../lib/lead-trigger';
import { sleep } from '../lib/wait';
import type { Scenario } from './context';

export const recoveryAfterDowntime: Scenario = {
	name: 'recovery after downtime: each missed create, update and delete runs once when n8n is back, nothing else',
	async run({ n8n, rest, sim, credential }) {
		const [untouched, updatedWhileDown, deletedWhileDown] = sim.control.seedLeads(3);
		const { created, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		const onCreate = subscriptions.find((subscription) => subscription.topic === 'lead/create')!;
		await sleep(1_100); // lead times have whole seconds under some services: past the activation's
		const live = sim.control.portalCreateLead({ firstName: 'Live', lastName: 'Lead' });
		// created after the trigger last listed the leads, so known only from its create's run
		const liveThenGone = sim.control.portalCreateLead({ firstName: 'Live', lastName: 'Gone' });
		await waitForExecutions(rest, created.id, 2, 60_000);

		let missed: string[] = [];
		let lostCreate: { leadId: string; timestamp: string } | undefined;
		const before = new Set(sim.control.deliveries().map((attempt) => attempt.deliveryId));
		await n8n.restart({
			whileStopped: async () => {
				const a = sim.control.portalCreateLead({ firstName: 'Missed', lastName: 'A' });
				const b = sim.control.portalCreateLead({ firstName: 'Missed', lastName: 'B' });
				sim.control.portalUpdateLead(updatedWhileDown!.id, { value: 11 });
				sim.control.portalUpdateLead(live.id, { value: 12 });
				sim.control.portalDeleteLead(deletedWhileDown!.id);
				sim.control.portalDeleteLead(liveThenGone.id);
				await sim.control.waitForDeliveries(60_000);
				const lost = sim.control.deliveries().filter((attempt) => !before.has(attempt.deliveryId));
				assert.ok(
					lost.length >= 6 && lost.every((attempt) => !attempt.acknowledged),
					'the service should have given up on every delivery while n8n was stopped',
				);
				lostCreate = lost.find((attempt) => attempt.leadId === a.id);
				missed = [
					`lead/create ${a.id}`,
					`lead/create ${b.id}`,
					`lead/update ${updatedWhileDown!.id}`,
					`lead/update ${live.id}`,
					`lead/delete ${deletedWhileDown!.id}`,
					`lead/delete ${liveThenGone.id}`,
				];
			},
		});
		const backAt = Date.now();
		await waitForExecutions(rest, created.id, 8, 180_000);
		const recoveredAfterMs = Date.now() - backAt;
		await sleep(3_000); // give a wrongly started run time to show up

		const outputs = async () => await triggerOutputs(rest, created.id);
		const recovered = (await outputs()).filter((output) => output.recovered === true);
		assert.deepEqual(
			recovered.map((output) => `${output.event.topic} ${output.event.id}`).sort(),
			[...missed].sort(),
			'the recovered executions',
		);
		assert.ok(!JSON.stringify(recovered).includes(untouched!.id), 'an unchanged lead ran');

		// The service's late retry of a recovered event starts nothing.
		const late = await signedDelivery(onCreate, lostCreate!.leadId, lostCreate!.timestamp);
		assert.equal(late.status, 200, `the late retry got ${late.status}`);
		await sleep(3_000);
		assert.equal((await rest.listExecutions(created.id)).length, 8, 'the late retry ran');

		// A live change afterwards runs once.
		sim.control.portalUpdateLead(lostCreate!.leadId, { value: 13 });
		await sim.control.waitForDeliveries(60_000);
		await waitForExecutions(rest, created.id, 9, 60_000);
		await sleep(2_000);
		const all = await outputs();
		assert.equal(all.length, 9, `expected 9 executions, got ${all.length}`);
		assert.equal(all.filter((output) => output.recovered === true).length, 6);

		await rest.deactivateWorkflow(created);
		process.stdout.write(
			`      n8n ${n8n.version}: recovered executions ${recoveredAfterMs} ms after n8n was back\n`,
		);
	},
};
