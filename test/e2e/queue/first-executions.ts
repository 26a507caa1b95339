/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The cluster's first executions, before any scenario: each webhook process hands a plain
 * Webhook → No Operation workflow (n8n's own nodes, no credential, no token) to the workers, and
 * each execution succeeds. The webhook answers when n8n has taken the call: one that waited for
 * the run's items was once left unanswered (CI, 1.123.81), n8n's own race described at
 * `WebhookAnswer`. The time each process took is printed, so a slow start is seen here rather
 * than inside a scenario.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { waitForExecutions } from '../lib/execution-data';
import { N8nRest } from '../lib/n8n-rest';
import type { QueueCluster } from '../lib/queue-mode/cluster';
import { runThroughWebhook } from '../lib/run-workflow';
import { NODE, webhookStartNode } from '../workflows';

/** A fresh cluster's webhook processes know a newly published workflow's webhook within this. */
const REGISTERED_WITHIN_MS = 90_000;

export async function firstExecutionsOnWorkers(
	cluster: QueueCluster,
	rest: N8nRest,
	figures: Map<string, string | number>,
): Promise<void> {
	const path = `e2e-first-${randomUUID()}`;
	const start = webhookStartNode(path, NODE.webhook, 'onReceived');
	const noOp = {
		id: randomUUID(),
		name: 'No Operation',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const created = await rest.createWorkflow({
		name: 'e2e first executions',
		nodes: [start, noOp],
		connections: {
			[String(start.name)]: { main: [[{ node: noOp.name, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	await rest.activateWorkflow(created);
	const took: string[] = [];
	for (const webhookProcess of cluster.webhooks) {
		const startedAt = Date.now();
		const answer = await runThroughWebhook(
			new N8nRest(webhookProcess.baseUrl),
			path,
			{ from: webhookProcess.name },
			REGISTERED_WITHIN_MS,
		);
		assert.equal(
			answer.status,
			200,
			`${webhookProcess.name} answered ${answer.status}: ${answer.text}`,
		);
		took.push(`${webhookProcess.name} ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
	}
	figures.set('first execution through each webhook process', took.join(', '));
	const executions = await waitForExecutions(rest, created.id, cluster.webhooks.length, 60_000);
	for (const execution of executions)
		assert.equal(
			execution.status,
			'success',
			`first execution ${execution.id} ended ${execution.status}`,
		);
	await rest.deactivateWorkflow(created);
}
