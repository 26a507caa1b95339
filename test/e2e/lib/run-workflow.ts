/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Running a Webhook-started workflow through its production URL. */
import assert from 'node:assert/strict';

import { executionError, waitForExecutions } from './execution-data';
import type { HttpResponse } from './http';
import type { N8nRest } from './n8n-rest';
import { pollUntil, sleep } from './wait';

/**
 * POSTs `body` to `/webhook/<path>`. Right after activation (2.x registers webhooks a moment after
 * the activate call returns) the path may still be unknown: n8n answers 404 without running
 * anything, so the call is repeated (bounded) until n8n accepts it.
 */
export async function runThroughWebhook(
	rest: N8nRest,
	path: string,
	body: unknown,
	timeoutMs = 30_000,
): Promise<HttpResponse> {
	return await pollUntil(
		async () => {
			const response = await rest.callWebhook(path, body);
			return response.status === 404 ? undefined : response;
		},
		{
			timeoutMs,
			intervalMs: 250,
			what: `the production webhook /webhook/${path} to be registered`,
		},
	);
}

/**
 * Runs of one webhook-started workflow started together: `runTogether(count, spacingMs)` starts
 * `count` runs, each `spacingMs` after the one before, and checks that each was answered 200
 * and that every execution of the workflow so far succeeded.
 */
export function runsTogether(options: {
	/** the REST API that lists executions (the main process) */
	rest: N8nRest;
	/** where production webhooks are received (the main process, or the load balancer) */
	webhooks: N8nRest;
	workflowId: string;
	webhookPath: string;
	body: unknown;
}) {
	const { rest, webhooks, workflowId, webhookPath, body } = options;
	let runs = 0;
	const runTogether = async (count: number, spacingMs = 0): Promise<void> => {
		const answers = await Promise.all(
			Array.from({ length: count }, async (_, index) => {
				await sleep(index * spacingMs);
				return await runThroughWebhook(webhooks, webhookPath, body);
			}),
		);
		runs += count;
		for (const answer of answers)
			assert.equal(
				answer.status,
				200,
				`a run answered ${answer.status}: ${answer.text.slice(0, 200)}`,
			);
		const executions = await waitForExecutions(rest, workflowId, runs, 90_000);
		for (const summary of executions) {
			const execution = await rest.getExecution(summary.id);
			assert.equal(
				execution.status,
				'success',
				`execution ${summary.id} ended ${execution.status}: ${executionError(execution) ?? ''}`,
			);
		}
	};
	return { runTogether, runs: () => runs };
}
