/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * An n8n restart with the lead trigger active, as an upgrade or a crash does it: the
 * subscriptions are neither duplicated nor lost, and an event that ran before the restart runs
 * no second time when the service delivers it again after it.
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { activateLeadTrigger, signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import type { Scenario } from './context';

export const restartWithActiveTrigger: Scenario = {
	name: 'restart with the trigger active: subscriptions kept, an event delivered before and after the restart runs once',
	async run({ n8n, rest, sim, credential }) {
		const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		const subscriptionIds = subscriptions.map((subscription) => subscription.id).sort();
		const onUpdate = subscriptions.find((subscription) => subscription.topic === 'lead/update')!;
		const [lead] = sim.control.seedLeads(1);
		const timestamp = new Date().toISOString();

		// n8n answers 404 until it has registered the trigger's webhook (2.x does it a moment after activation)
		const deliverOnceRegistered = async (what: string) =>
			await pollUntil(
				async () => {
					const response = await signedDelivery(onUpdate, lead!.id, timestamp);
					return response.status === 404 ? undefined : response;
				},
				{ timeoutMs: 60_000, intervalMs: 500, what },
			);
		const first = await deliverOnceRegistered("the trigger's webhook to be registered");
		assert.equal(
			first.status,
			200,
			`the first delivery got ${first.status}: ${first.text.slice(0, 200)}`,
		);
		await waitForExecutions(rest, created.id, 1, 30_000);
		const repeated = await signedDelivery(onUpdate, lead!.id, timestamp);
		assert.equal(repeated.status, 200, `the repeated delivery got ${repeated.status}`);

		await n8n.restart();
		const afterRestart = await deliverOnceRegistered(
			"the trigger's webhook to be registered again after the restart",
		);
		assert.equal(
			afterRestart.status,
			200,
			`the delivery after the restart got ${afterRestart.status}: ${afterRestart.text.slice(0, 200)}`,
		);
		const kept = subscriptionsOf(sim, webhookId)
			.map((subscription) => subscription.id)
			.sort();
		assert.deepEqual(kept, subscriptionIds, 'the restart changed the subscriptions');

		sim.control.portalUpdateLead(lead!.id, { value: 7 });
		await sim.control.waitForDeliveries(30_000);
		await waitForExecutions(rest, created.id, 2, 30_000);
		await sleep(1_500); // give a wrongly started run time to show up
		const executions = await rest.listExecutions(created.id);
		assert.equal(
			executions.length,
			2,
			`expected 2 executions (the event before the restart once, one new event), got ${executions.length}`,
		);

		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the trigger to delete its subscriptions after deactivation',
		});
	},
};
