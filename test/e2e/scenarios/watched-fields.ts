/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Fields to Watch in the real app, webhook trigger and Polling Trigger side by side, both on
 * Lead Updated watching the status: a status change runs each once with its old and new value,
 * a notes change runs neither; a status change made while n8n was stopped (the service gave up
 * its deliveries) is recovered by the webhook trigger and polled by the Polling Trigger, each
 * with its `from`.
 */
import assert from 'node:assert/strict';

import { nodeOutput, waitForExecutions } from '../lib/execution-data';
import { subscriptionsOf } from '../lib/lead-trigger';
import type { N8nRest } from '../lib/n8n-rest';
import { pollUntil, sleep } from '../lib/wait';
import { leadTriggerWorkflow, NODE } from '../workflows';
import type { Scenario } from './context';
import { NODE_NAME as POLLING_NODE, pollingWorkflow } from './polling';

const WATCHING = { events: ['lead/update'], fetchFullLead: true, watchedFields: ['status'] };

type Watched = {
	event: { id: string; topic: string };
	changes?: Record<string, { from?: unknown; to: unknown }>;
	changedFields?: string[];
	recovered?: boolean;
	recoveryReason?: string;
	polled?: boolean;
};

/** Every item the workflow's trigger put out, oldest execution first. */
async function outputsOf(rest: N8nRest, workflowId: string, node: string): Promise<Watched[]> {
	const executions = [...(await rest.listExecutions(workflowId))].reverse();
	const outputs: Watched[] = [];
	for (const summary of executions)
		outputs.push(...(nodeOutput(await rest.getExecution(summary.id), node) as Watched[]));
	return outputs;
}

/** `lead status from→to (marks)`: what a run says, compared as one line. */
function said(output: Watched): string {
	const status = output.changes?.status;
	const marks = [output.recoveryReason, output.polled ? 'polled' : undefined].filter(Boolean);
	return `${output.event.id} status ${String(status?.from)}→${String(status?.to)} [${output.changedFields?.join(',')}]${marks.length ? ` (${marks.join(', ')})` : ''}`;
}

export const watchedFields: Scenario = {
	name: 'watched fields: a status change runs once with from/to, a notes change not; a change while n8n was down is recovered (webhook) and polled (Polling Trigger) with its from',
	async run({ n8n, rest, sim, credential }) {
		const [wins, lostWhileDown, notesOnly] = sim.control.seedLeads([
			{ status: 'open' },
			{ status: 'open' },
			{ status: 'open' },
		]);
		const { workflow, webhookId } = leadTriggerWorkflow(credential, WATCHING);
		const webhook = await rest.activateWorkflow(await rest.createWorkflow(workflow));
		// Lead Updated, and Lead Created to keep new leads' values
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length >= 2 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the watching trigger to subscribe',
		});
		const polling = await rest.activateWorkflow(
			await rest.createWorkflow(pollingWorkflow(credential, WATCHING)),
		);
		await sleep(3_000); // both listed the portal (the webhook trigger's baseline, the first poll)

		sim.control.portalUpdateLead(wins!.id, { status: 'won' });
		sim.control.portalUpdateLead(notesOnly!.id, { notes: 'a typo fixed' });
		await waitForExecutions(rest, webhook.id, 1, 60_000);
		await waitForExecutions(rest, polling.id, 1, 150_000); // the next poll at a full minute
		await sleep(3_000);
		const live = `${wins!.id} status open→won [status]`;
		assert.deepEqual((await outputsOf(rest, webhook.id, NODE.trigger)).map(said), [live]);
		assert.deepEqual((await outputsOf(rest, polling.id, POLLING_NODE)).map(said), [
			`${live} (polled)`,
		]);

		await n8n.restart({
			whileStopped: async () => {
				sim.control.portalUpdateLead(lostWhileDown!.id, { status: 'won' });
				sim.control.portalUpdateLead(notesOnly!.id, { notes: 'changed again' });
				await sim.control.waitForDeliveries(60_000);
			},
		});
		await waitForExecutions(rest, webhook.id, 2, 180_000);
		await waitForExecutions(rest, polling.id, 2, 180_000);
		await sleep(3_000);
		const missed = `${lostWhileDown!.id} status open→won [status]`;
		assert.deepEqual((await outputsOf(rest, webhook.id, NODE.trigger)).map(said), [
			live,
			`${missed} (missed)`,
		]);
		assert.deepEqual((await outputsOf(rest, polling.id, POLLING_NODE)).map(said), [
			`${live} (polled)`,
			`${missed} (polled)`,
		]);
		await rest.deactivateWorkflow(webhook);
		await rest.deactivateWorkflow(polling);
	},
};
