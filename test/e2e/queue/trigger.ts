/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The lead trigger in queue mode: activation on the main process subscribes once; deliveries
 * reach both webhook processes through the load balancer; every event runs once, also when the
 * service repeats it; forged deliveries are refused by every process; deactivation leaves nothing.
 *
 * Exactly once holds for repeats that come the way the spec describes them: a retry after the
 * service's backoff (it saw no 200). A copy that reaches the other webhook process within
 * milliseconds of the first one's acknowledgement (before n8n has saved the first one's record)
 * or at the same moment can run again: those are counted and reported, not asserted (README,
 * "Running in queue mode").
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { httpRequest } from '../lib/http';
import { activateLeadTrigger, signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import type { Subscription } from '../../simulator/types';
import type { QueueContext, QueueScenario } from './context';

/** The same subscription, delivered to one webhook process directly instead of through the balancer. */
export function at(subscription: Subscription, baseUrl: string): Subscription {
	const url = new URL(subscription.url);
	return { ...subscription, url: `${baseUrl}${url.pathname}` };
}

async function executionCount(context: QueueContext, workflowId: string): Promise<number> {
	return (await context.rest.listExecutions(workflowId)).length;
}

/** Waits until the count stays the same for a while: nothing more is coming. */
async function settledCount(
	context: QueueContext,
	workflowId: string,
	atLeast: number,
): Promise<number> {
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
	name: 'queue mode: subscribed once; every event runs, once also when retried to the other webhook process; forgeries refused by each; nothing left after deactivation',
	async run(context) {
		const { rest, sim, credential, cluster, figures } = context;
		const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		await sleep(2_000); // a second process subscribing too would show up by now
		assert.equal(
			subscriptionsOf(sim, webhookId).length,
			3,
			`activation made ${subscriptionsOf(sim, webhookId).length} subscriptions`,
		);
		figures.set('subscriptions after activation', subscriptionsOf(sim, webhookId).length);
		assert.ok(
			subscriptions.every((subscription) => subscription.url.startsWith(cluster.balancerUrl)),
			'the subscriptions do not point at the load balancer',
		);

		// portal events; the service also sends 30% of them once more right after their 200, in shuffled order
		sim.control.setDeliveryFaults({ duplicateRate: 0.3, reorder: true });
		const portalEvents = 20;
		// one update per lead: two updates of one lead within the same millisecond would be one event (same topic, id and time)
		const leads = sim.control.seedLeads(portalEvents);
		for (const [index, seeded] of leads.entries())
			sim.control.portalUpdateLead(seeded.id, { value: index });
		const lead = leads[0];
		await sim.control.waitForDeliveries(60_000);
		sim.control.setDeliveryFaults({});
		const acknowledged = sim.control.deliveries().filter((attempt) => attempt.acknowledged).length;
		let executions = await settledCount(context, created.id, portalEvents);
		figures.set(
			'portal events / deliveries acknowledged (30% sent again at once) / executions',
			`${portalEvents} / ${acknowledged} / ${executions}`,
		);
		assert.ok(
			executions >= portalEvents,
			`${portalEvents} portal events ran only ${executions} times: an event was lost`,
		);
		assert.ok(
			executions <= acknowledged,
			`${acknowledged} deliveries started ${executions} executions`,
		);

		const onUpdate = subscriptions.find((subscription) => subscription.topic === 'lead/update')!;
		// a retry as the spec describes it: the same event again after the service's backoff, to the other webhook process
		const retried = 10;
		let base = executions;
		for (let index = 0; index < retried; index++) {
			const timestamp = new Date(Date.now() + index).toISOString();
			const [firstReceiver, secondReceiver] = cluster.webhooks;
			const answer = await signedDelivery(
				at(onUpdate, firstReceiver!.baseUrl),
				lead!.id,
				timestamp,
			);
			assert.equal(answer.status, 200, `a delivery to ${firstReceiver!.name} got ${answer.status}`);
			await sleep(1_000);
			const again = await signedDelivery(
				at(onUpdate, secondReceiver!.baseUrl),
				lead!.id,
				timestamp,
			);
			assert.equal(again.status, 200, `the retry to ${secondReceiver!.name} got ${again.status}`);
		}
		executions = await settledCount(context, created.id, base + retried);
		figures.set(
			'events retried 1 s later to the other webhook process / executions',
			`${retried} / ${executions - base}`,
		);
		assert.equal(
			executions - base,
			retried,
			'a retry that reached the other webhook process ran the event again',
		);

		// one after the other without a pause, each copy to the other webhook process
		const immediate = 10;
		base = executions;
		for (let index = 0; index < immediate; index++) {
			const timestamp = new Date(Date.now() + 100 + index).toISOString();
			for (const receiver of cluster.webhooks)
				await signedDelivery(at(onUpdate, receiver.baseUrl), lead!.id, timestamp);
		}
		executions = await settledCount(context, created.id, base + immediate);
		figures.set(
			'events sent to the other webhook process right after their 200 / executions',
			`${immediate} / ${executions - base}`,
		);

		// at the same moment, one copy to each webhook process
		const concurrent = 20;
		for (let index = 0; index < concurrent; index++) {
			const timestamp = new Date(Date.now() + index).toISOString();
			await Promise.all(
				cluster.webhooks.map(
					async (receiver) =>
						await signedDelivery(at(onUpdate, receiver.baseUrl), lead!.id, timestamp),
				),
			);
		}
		const before = executions;
		await sleep(10); // new timestamps
		executions = await settledCount(context, created.id, before + concurrent);
		figures.set(
			'events delivered to both webhook processes at the same moment / executions',
			`${concurrent} / ${executions - before}`,
		);

		// forged: a valid body with a signature made with another secret, to every process
		for (const receiver of cluster.webhooks) {
			const body = JSON.stringify({
				id: lead!.id,
				topic: 'lead/update',
				timestamp: new Date().toISOString(),
			});
			const forged = await httpRequest(`${receiver.baseUrl}${new URL(onUpdate.url).pathname}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-svc-signature-v2': 'f'.repeat(64) },
				body,
			});
			assert.equal(
				forged.status,
				401,
				`${receiver.name} answered a forged delivery ${forged.status}`,
			);
		}
		assert.equal(
			await settledCount(context, created.id, executions),
			executions,
			'a forged delivery started an execution',
		);

		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the trigger to delete its subscriptions after deactivation',
		});
		figures.set('subscriptions after deactivation', subscriptionsOf(sim, webhookId).length);
	},
};
