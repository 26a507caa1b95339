/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Restarts and crashes in queue mode: the main and webhook processes restart with the trigger
 * active (subscriptions kept, an event delivered before and after runs once); a worker killed in
 * the middle of a run started by an acknowledged event (what n8n does with the execution).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import type { Subscription } from '../../simulator/types';
import { executionError, waitForExecutions } from '../lib/execution-data';
import { signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import { leadTriggerWorkflow } from '../workflows';
import type { QueueContext, QueueScenario } from './context';

/** Delivers until a webhook process knows the trigger's path (404 before it registered it). */
export async function deliverOnceRegistered(
	subscription: Subscription,
	leadId: string,
	timestamp: string,
	what: string,
) {
	return await pollUntil(
		async () => {
			const answer = await signedDelivery(subscription, leadId, timestamp);
			return answer.status === 404 ? undefined : answer;
		},
		{ timeoutMs: 60_000, intervalMs: 500, what },
	);
}

export async function activate(
	context: QueueContext,
	extraNodes: Array<Record<string, unknown>> = [],
) {
	const { workflow, webhookId } = leadTriggerWorkflow(context.credential);
	if (extraNodes.length > 0) {
		workflow.nodes.push(...extraNodes);
		const from = String(workflow.nodes[0]!.name);
		workflow.connections = {
			[from]: { main: [[{ node: String(extraNodes[0]!.name), type: 'main', index: 0 }]] },
		};
	}
	const created = await context.rest.createWorkflow(workflow);
	await context.rest.activateWorkflow(created);
	const subscriptions = await pollUntil(
		() => {
			const found = subscriptionsOf(context.sim, webhookId);
			return found.length >= 3 ? found : undefined;
		},
		{ timeoutMs: 60_000, what: 'the trigger to subscribe' },
	);
	return {
		created,
		webhookId,
		onUpdate: subscriptions.find((subscription) => subscription.topic === 'lead/update')!,
	};
}

export const restartInQueueMode: QueueScenario = {
	name: 'queue mode: main and webhook processes restart with the trigger active: subscriptions kept, an event delivered before and after runs once',
	async run(context) {
		const { rest, sim, cluster, figures } = context;
		const { created, webhookId, onUpdate } = await activate(context);
		const ids = subscriptionsOf(sim, webhookId)
			.map((subscription) => subscription.id)
			.sort();
		const [lead] = sim.control.seedLeads(1);
		const timestamp = new Date().toISOString();
		const first = await deliverOnceRegistered(
			onUpdate,
			lead!.id,
			timestamp,
			"the trigger's webhook to be registered",
		);
		assert.equal(first.status, 200, `the first delivery got ${first.status}`);
		await waitForExecutions(rest, created.id, 1, 60_000);

		await cluster.main.restart();
		for (const receiver of cluster.webhooks) await receiver.restart();
		await rest.login(context.owner.email, context.owner.password).catch(() => undefined);
		for (const receiver of cluster.webhooks) {
			const direct = { ...onUpdate, url: `${receiver.baseUrl}${new URL(onUpdate.url).pathname}` };
			const again = await deliverOnceRegistered(
				direct,
				lead!.id,
				timestamp,
				`${receiver.name} to know the trigger again after the restart`,
			);
			assert.equal(
				again.status,
				200,
				`${receiver.name} answered the repeated delivery ${again.status}`,
			);
		}
		assert.deepEqual(
			subscriptionsOf(sim, webhookId)
				.map((subscription) => subscription.id)
				.sort(),
			ids,
			'the restart changed the subscriptions',
		);
		sim.control.portalUpdateLead(lead!.id, { value: 1 });
		await sim.control.waitForDeliveries(60_000);
		await waitForExecutions(rest, created.id, 2, 60_000);
		await sleep(2_000);
		const executions = (await rest.listExecutions(created.id)).length;
		figures.set(
			'event run before the restart, delivered again to both webhook processes after it: extra runs',
			executions - 2,
		);
		assert.equal(
			executions,
			2,
			`expected 2 executions (one event before the restart, one after), got ${executions}`,
		);
		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'no subscription left',
		});
	},
};

const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

export const workerKilledMidRun: QueueScenario = {
	name: 'queue mode: a worker killed in the middle of a run started by an acknowledged event: the execution is not lost',
	async run(context) {
		const { rest, sim, cluster, figures } = context;
		const [first, second] = cluster.workers;
		// one worker left, so the run lands on it
		await second!.kill();
		const wait = {
			id: randomUUID(),
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [220, 0],
			webhookId: randomUUID(),
			parameters: { resume: 'timeInterval', amount: 6, unit: 'seconds' },
		};
		const { created, onUpdate } = await activate(context, [wait]);
		const [lead] = sim.control.seedLeads(1);
		const acknowledged = await deliverOnceRegistered(
			onUpdate,
			lead!.id,
			new Date().toISOString(),
			"the trigger's webhook to be registered",
		);
		assert.equal(acknowledged.status, 200, `the delivery got ${acknowledged.status}`);
		await pollUntil(
			async () =>
				(await rest.listExecutions(created.id)).some((execution) => execution.status === 'running')
					? true
					: undefined,
			{
				timeoutMs: 60_000,
				intervalMs: 250,
				what: 'the run to start on the worker',
			},
		);
		await first!.kill();
		await second!.restart();
		const outcome = await pollUntil(
			async () => {
				const executions = await rest.listExecutions(created.id);
				return executions.length > 0 && executions.every((execution) => DONE.has(execution.status))
					? executions
					: undefined;
			},
			{
				timeoutMs: 120_000,
				intervalMs: 1_000,
				what: 'the interrupted execution to end (run again by the other worker, or marked crashed)',
			},
		);
		const details = await Promise.all(
			outcome.map(async (execution) => await rest.getExecution(execution.id)),
		);
		const statuses = details
			.map(
				(execution) =>
					`${execution.status}${executionError(execution) ? ` ("${executionError(execution)}")` : ''}`,
			)
			.join(', ');
		figures.set('worker killed mid-run: executions of the acknowledged event', statuses);
		await first!.restart();
		assert.ok(outcome.length >= 1, 'the acknowledged event has no execution');
		await rest.deactivateWorkflow(created);
	},
};
