/**
 * The lead trigger in queue mode: activation on the main process subscribes once; deliveries
 * reach both webhook processes through the load balancer; every event runs once, also when the
 * service repeats it; forged deliveries are refused by every process; deactivation leaves nothing.
 * Duplicates of one event sent to both webhook processes at the same moment are counted: no
 * process can see the other's claim before it is saved (see README, "Running in queue mode").
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { httpRequest } from '../lib/http';
import { activateLeadTrigger, signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import type { Subscription } from '../../simulator/types';
import type { QueueContext, QueueScenario } from './context';

/** The same subscription, delivered to one webhook process directly instead of through the balancer. */
function at(subscription: Subscription, baseUrl: string): Subscription {
	const url = new URL(subscription.url);
	return { ...subscription, url: `${baseUrl}${url.pathname}` };
}

async function executionCount(context: QueueContext, workflowId: string): Promise<number> {
	return (await context.rest.listExecutions(workflowId)).length;
}

/** Waits until the count stays the same for a while: nothing more is coming. */
async function settledCount(context: QueueContext, workflowId: string, atLeast: number): Promise<number> {
	await waitForExecutions(context.rest, workflowId, atLeast, 90_000);
	let last = -1;
	return await pollUntil(
		async () => {
			await sleep(1_500);
			const count = await executionCount(context, workflowId);
			if (count === last) return count;
			last = count;
			return undefined;
		},
		{ timeoutMs: 60_000, intervalMs: 0, what: 'the executions to settle' },
	);
}

export const triggerInQueueMode: QueueScenario = {
	name: 'queue mode: subscribed once; every event runs once over both webhook processes, repeats included; forgeries refused by each; nothing left after deactivation',
	async run(context) {
		const { rest, sim, credential, cluster, figures } = context;
		const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		await sleep(2_000); // a second process subscribing too would show up by now
		assert.equal(subscriptionsOf(sim, webhookId).length, 3, `activation made ${subscriptionsOf(sim, webhookId).length} subscriptions`);
		figures.set('subscriptions after activation', subscriptionsOf(sim, webhookId).length);
		assert.ok(subscriptions.every((subscription) => subscription.url.startsWith(cluster.balancerUrl)), 'the subscriptions do not point at the load balancer');

		// portal events, with the service repeating 30% of its deliveries and shuffling their order
		sim.control.setDeliveryFaults({ duplicateRate: 0.3, reorder: true });
		const portalEvents = 20;
		// one update per lead: two updates of one lead within the same millisecond would be one event (same topic, id and time)
		const leads = sim.control.seedLeads(portalEvents);
		for (const [index, seeded] of leads.entries()) sim.control.portalUpdateLead(seeded.id, { value: index });
		const lead = leads[0];
		await sim.control.waitForDeliveries(60_000);
		sim.control.setDeliveryFaults({});
		const acknowledged = sim.control.deliveries().filter((attempt) => attempt.acknowledged).length;
		let executions = await settledCount(context, created.id, portalEvents);
		figures.set('portal events / deliveries acknowledged / executions', `${portalEvents} / ${acknowledged} / ${executions}`);
		assert.equal(executions, portalEvents, `${portalEvents} portal events (${acknowledged} deliveries) ran ${executions} times`);

		const onUpdate = subscriptions.find((subscription) => subscription.topic === 'lead/update')!;
		// one after the other, each copy to the other webhook process
		const sequential = 10;
		for (let index = 0; index < sequential; index++) {
			const timestamp = new Date().toISOString();
			for (const receiver of cluster.webhooks) {
				const answer = await signedDelivery(at(onUpdate, receiver.baseUrl), lead!.id, timestamp);
				assert.equal(answer.status, 200, `a delivery to ${receiver.name} got ${answer.status}`);
			}
			await sleep(50);
		}
		executions = await settledCount(context, created.id, portalEvents + sequential);
		figures.set('events delivered to both webhook processes one after the other / executions', `${sequential} / ${executions - portalEvents}`);
		assert.equal(executions - portalEvents, sequential, 'a duplicate sent to the other webhook process ran again');

		// at the same moment, one copy to each webhook process
		const concurrent = 20;
		for (let index = 0; index < concurrent; index++) {
			const timestamp = new Date(Date.now() + index).toISOString();
			await Promise.all(cluster.webhooks.map(async (receiver) => await signedDelivery(at(onUpdate, receiver.baseUrl), lead!.id, timestamp)));
		}
		const before = executions;
		executions = await settledCount(context, created.id, before + concurrent);
		figures.set('events delivered to both webhook processes at the same moment / executions', `${concurrent} / ${executions - before}`);

		// forged: a valid body with a signature made with another secret, to every process
		for (const receiver of cluster.webhooks) {
			const body = JSON.stringify({ id: lead!.id, topic: 'lead/update', timestamp: new Date().toISOString() });
			const forged = await httpRequest(`${receiver.baseUrl}${new URL(onUpdate.url).pathname}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-svc-signature-v2': 'f'.repeat(64) },
				body,
			});
			assert.equal(forged.status, 401, `${receiver.name} answered a forged delivery ${forged.status}`);
		}
		assert.equal(await settledCount(context, created.id, executions), executions, 'a forged delivery started an execution');

		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the trigger to delete its subscriptions after deactivation',
		});
		figures.set('subscriptions after deactivation', subscriptionsOf(sim, webhookId).length);
	},
};
