/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Running a Webhook-started workflow through its production URL. */
import assert from 'node:assert/strict';

import { executionError, waitForExecutions } from './execution-data';
import type { RequestStats } from '../../simulator/types';
import type { HttpResponse } from './http';
import type { N8nRest } from './n8n-rest';
import { pollUntil, sleep } from './wait';

/**
 * POSTs `body` to `/webhook/<path>`. Right after activation (2.x registers webhooks a moment after
 * the activate call returns) the path may still be unknown: n8n answers 404 without running
 * anything, so the call is repeated (bounded) until n8n accepts it. A call n8n took but did not
 * answer in time is not repeated: the run may be under way, and a second call would run it twice.
 */
export async function runThroughWebhook(
	rest: N8nRest,
	path: string,
	body: unknown,
	timeoutMs = 30_000,
): Promise<HttpResponse> {
	const startedAt = Date.now();
	const outcome = await pollUntil(
		async () => {
			try {
				const response = await rest.callWebhook(path, body);
				return response.status === 404 ? undefined : response;
			} catch (error) {
				if (error instanceof Error && error.name === 'TimeoutError') return 'unanswered' as const;
				throw error;
			}
		},
		{
			timeoutMs,
			intervalMs: 250,
			what: `the production webhook /webhook/${path} to be registered`,
		},
	);
	if (outcome !== 'unanswered') return outcome;
	throw new Error(
		`POST /webhook/${path} got no answer: n8n took the call and had not answered ` +
			`${((Date.now() - startedAt) / 1000).toFixed(1)} s later`,
	);
}

/** Where the runs stand when a call was not answered: n8n's executions, the service's requests. */
async function whereRunsStand(
	rest: N8nRest,
	workflowId: string,
	stats: RequestStats | undefined,
): Promise<string> {
	const executions = await rest.listExecutions(workflowId).catch(() => undefined);
	const others = (executions ?? [])
		.filter((execution) => execution.status !== 'success')
		.map((execution) => `#${execution.id} ${execution.status} since ${execution.startedAt ?? '-'}`);
	const inN8n = executions
		? `${executions.length - others.length} succeeded${others.length ? `, ${others.join(', ')}` : ''}`
		: 'could not be listed';
	const unanswered = Object.entries(stats?.byRoute ?? {}).flatMap(([route, received]) => {
		const statuses = Object.values(stats?.statusesByRoute[route] ?? {});
		const answered = statuses.reduce((sum, times) => sum + times, 0);
		return received > answered ? [`${route} ${received - answered}`] : [];
	});
	const atService = !stats
		? ''
		: unanswered.length
			? `; the service had not answered ${unanswered.join(', ')}`
			: '; the service had answered every request it received';
	return `n8n's executions of the workflow: ${inN8n}${atService}`;
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
	/** the service's request counts, told when a call is not answered */
	serviceStats?: () => RequestStats;
}) {
	const { rest, webhooks, workflowId, webhookPath, body, serviceStats } = options;
	let runs = 0;
	const runTogether = async (count: number, spacingMs = 0): Promise<void> => {
		const answers = await Promise.all(
			Array.from({ length: count }, async (_, index) => {
				await sleep(index * spacingMs);
				try {
					return await runThroughWebhook(webhooks, webhookPath, body);
				} catch (error) {
					const stand = await whereRunsStand(rest, workflowId, serviceStats?.());
					throw new Error(`${error instanceof Error ? error.message : String(error)}; ${stand}`);
				}
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
