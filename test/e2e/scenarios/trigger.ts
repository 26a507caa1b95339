/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Scenario 4: the trigger in a real, active workflow.
 * Activation creates one subscription per topic; portal changes run the workflow with the fetched
 * lead; a forged delivery is refused (401) and runs nothing; deactivation leaves no subscription.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';

import type { LeadTopic, Simulator } from '../../simulator/types';
import { nodeOutput, waitForExecutions } from '../lib/execution-data';
import { httpRequest, isRecord } from '../lib/http';
import type { N8nRest } from '../lib/n8n-rest';
import { pollUntil, sleep } from '../lib/wait';
import { activateLeadTrigger, subscriptionsOf } from '../lib/lead-trigger';
import { NODE } from '../workflows';
import type { Scenario } from './context';

const TOPICS: LeadTopic[] = ['lead/create', 'lead/update', 'lead/delete'];

/** Every logical delivery to these subscriptions was acknowledged (after retries, if any). */
function assertDeliveriesAcknowledged(sim: Simulator, subscriptionIds: Set<string>): void {
	const byDelivery = new Map<string, boolean>();
	for (const attempt of sim.control.deliveries()) {
		if (!subscriptionIds.has(attempt.subscriptionId)) continue;
		byDelivery.set(
			attempt.deliveryId,
			(byDelivery.get(attempt.deliveryId) ?? false) || attempt.acknowledged,
		);
	}
	const unacknowledged = [...byDelivery]
		.filter(([, acknowledged]) => !acknowledged)
		.map(([id]) => id);
	assert.deepEqual(unacknowledged, [], 'deliveries n8n never acknowledged');
}

/** A delivery for a lead event, signed with a key that is not the subscription's secret. */
async function postForgedDelivery(url: string, leadId: string) {
	const body = JSON.stringify({
		id: leadId,
		topic: 'lead/create',
		timestamp: new Date().toISOString(),
	});
	const forgedKey = randomBytes(32).toString('hex');
	return await httpRequest(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'user-agent': 'svc-webhooks/e2e',
			'x-svc-signature-v2': createHmac('sha256', forgedKey).update(body).digest('hex'),
			'x-svc-signature': createHmac('sha256', forgedKey).update(body).digest('hex'),
		},
		body,
	});
}

/** Makes a portal change and waits until the workflow ran for it. */
async function portalChange<T>(
	sim: Simulator,
	rest: N8nRest,
	workflowId: string,
	expectedRuns: number,
	change: () => T,
): Promise<T> {
	const result = change();
	await sim.control.waitForDeliveries(30_000);
	await waitForExecutions(rest, workflowId, expectedRuns, 30_000);
	return result;
}

export const leadTrigger: Scenario = {
	name: 'trigger: subscriptions on activation, runs on portal changes, refuses forged deliveries, cleans up',
	async run({ rest, sim, credential }) {
		const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		await sleep(500); // a straggler would show up as a 4th subscription
		const settled = subscriptionsOf(sim, webhookId);
		assert.deepEqual(
			settled.map((s) => s.topic).sort(),
			[...TOPICS].sort(),
			'expected exactly one subscription per topic',
		);
		const subscriptionIds = new Set(subscriptions.map((s) => s.id));
		const createSubscription = settled.find((s) => s.topic === 'lead/create')!;

		// The subscription may exist a moment before n8n serves its URL (2.x): wait until n8n answers
		// there (404 = not yet registered); a forged delivery must get 401 and run nothing.
		const firstForged = await pollUntil(
			async () => {
				const response = await postForgedDelivery(
					createSubscription.url,
					randomBytes(12).toString('hex'),
				);
				return response.status === 404 ? undefined : response;
			},
			{ timeoutMs: 30_000, what: `n8n to serve the trigger's webhook ${createSubscription.url}` },
		);
		assert.equal(
			firstForged.status,
			401,
			`a forged delivery got ${firstForged.status}: ${firstForged.text.slice(0, 200)}`,
		);

		const lead = await portalChange(sim, rest, created.id, 1, () =>
			sim.control.portalCreateLead({
				firstName: 'Katherine',
				lastName: 'Johnson',
				email: 'katherine@example.com',
				platform: 'pipedrive',
				partnerOrganizationId: sim.defaultPartnerOrganization.id,
				agentId: sim.defaultAgents[0]!.id,
				customFields: { industry: 'healthcare' },
			}),
		);
		const leadId = lead.id;
		await portalChange(sim, rest, created.id, 2, () =>
			sim.control.portalUpdateLead(leadId, { value: 5000 }),
		);
		await portalChange(sim, rest, created.id, 3, () => sim.control.portalDeleteLead(leadId));
		assertDeliveriesAcknowledged(sim, subscriptionIds);

		const executions = await waitForExecutions(rest, created.id, 3, 10_000);
		assert.equal(executions.length, 3, `expected 3 executions, got ${executions.length}`);
		const seen = new Map<string, Record<string, unknown>>();
		for (const summary of executions) {
			assert.equal(summary.status, 'success', `execution ${summary.id} ended ${summary.status}`);
			const items = nodeOutput(await rest.getExecution(summary.id), NODE.trigger);
			assert.equal(items.length, 1, `execution ${summary.id} has ${items.length} trigger items`);
			const item = items[0]!;
			assert.ok(isRecord(item.event), `execution ${summary.id}: no event in the item`);
			assert.equal(item.event.id, leadId);
			seen.set(String(item.event.topic), item);
		}
		assert.deepEqual([...seen.keys()].sort(), [...TOPICS].sort(), 'one execution per topic');
		const onCreate = seen.get('lead/create')!.lead;
		const onUpdate = seen.get('lead/update')!.lead;
		assert.ok(
			isRecord(onCreate) && onCreate.id === leadId && onCreate.firstName === 'Katherine',
			'lead/create: the fetched lead is missing or wrong',
		);
		assert.ok(
			isRecord(onUpdate) && onUpdate.value === 5000,
			'lead/update: the fetched lead does not carry the update',
		);

		// A delivery about a real lead, signed with another secret: refused, nothing runs.
		const forged = await postForgedDelivery(createSubscription.url, leadId);
		assert.equal(
			forged.status,
			401,
			`a forged delivery got ${forged.status}: ${forged.text.slice(0, 200)}`,
		);
		await sleep(1_500); // nothing is expected to happen; give a wrongly started run time to show up
		const after = await rest.listExecutions(created.id);
		assert.equal(after.length, 3, `a forged delivery produced ${after.length - 3} execution(s)`);

		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the trigger to delete its subscriptions after deactivation',
		});
	},
};
