/** Starting an active lead trigger in the real app and finding its subscriptions on the simulator. */
import { createHmac } from 'node:crypto';

import type { Simulator, Subscription } from '../../simulator/types';
import { leadTriggerWorkflow, NODE, type CredentialRef } from '../workflows';
import { nodeOutput } from './execution-data';
import { httpRequest } from './http';
import type { N8nRest, WorkflowSummary } from './n8n-rest';
import { pollUntil } from './wait';

export const LEAD_TOPIC_COUNT = 3;

/** The subscriptions the trigger with this webhook id holds on the simulator. */
export function subscriptionsOf(sim: Simulator, webhookId: string): Subscription[] {
	return sim.control
		.listSubscriptions()
		.filter((subscription) => subscription.url.includes(webhookId));
}

/**
 * Creates and activates a lead-trigger workflow, then waits for its subscriptions: n8n 2.x
 * registers webhooks a moment after the activate call returns.
 */
export async function activateLeadTrigger(
	rest: N8nRest,
	sim: Simulator,
	credential: CredentialRef,
): Promise<{ created: WorkflowSummary; webhookId: string; subscriptions: Subscription[] }> {
	const { workflow, webhookId } = leadTriggerWorkflow(credential);
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	const subscriptions = await pollUntil(
		() => {
			const found = subscriptionsOf(sim, webhookId);
			return found.length >= LEAD_TOPIC_COUNT ? found : undefined;
		},
		{ timeoutMs: 30_000, what: 'the trigger to create its subscriptions on the simulator' },
	);
	return { created, webhookId, subscriptions };
}

/** A delivery exactly as the service signs it (v2 over the raw body, legacy over the sorted fields). */
export async function signedDelivery(
	subscription: Subscription,
	leadId: string,
	timestamp: string,
) {
	const body = JSON.stringify({ id: leadId, topic: subscription.topic, timestamp });
	const hmac = (data: string) =>
		createHmac('sha256', subscription.signingSecret).update(data).digest('hex');
	return await httpRequest(subscription.url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'user-agent': 'svc-webhooks/e2e',
			'x-svc-signature-v2': hmac(body),
			'x-svc-signature': hmac(JSON.stringify({ id: leadId, timestamp, topic: subscription.topic })),
		},
		body,
	});
}

/** What the trigger put out in each execution of the workflow: the event, and `recovered` on recovered ones. */
export type TriggerOutput = { event: { id: string; topic: string }; recovered?: boolean };

export async function triggerOutputs(rest: N8nRest, workflowId: string): Promise<TriggerOutput[]> {
	return await Promise.all(
		(await rest.listExecutions(workflowId)).map(
			async (summary) =>
				nodeOutput(
					await rest.getExecution(summary.id),
					NODE.trigger,
				)[0] as unknown as TriggerOutput,
		),
	);
}
