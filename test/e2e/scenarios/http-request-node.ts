/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Scenario 6: the credential works in n8n's own HTTP Request node ("Predefined Credential
 * Type"), so a user can call an endpoint the nodes do not cover. n8n runs our
 * preAuthentication and authenticate for that node too: the request carries the token.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { executionError, nodeOutput, waitForExecutions } from '../lib/execution-data';
import { runThroughWebhook } from '../lib/run-workflow';
import { getWithOurCredential, NODE, webhookStartNode } from '../workflows';
import type { Scenario } from './context';

const HTTP_NODE = 'Call Schema Endpoint';

export const httpRequestNode: Scenario = {
	name: "n8n's HTTP Request node calls the service with the predefined credential type",
	async run({ rest, sim, credential }) {
		const webhookPath = `e2e-http-${randomUUID()}`;
		const created = await rest.createWorkflow({
			name: `e2e http request ${webhookPath.slice(-8)}`,
			nodes: [
				webhookStartNode(webhookPath),
				getWithOurCredential(
					HTTP_NODE,
					credential,
					`${sim.url}/1.0/api/company/${sim.companyId}/schema/lead`,
				),
			],
			connections: { [NODE.webhook]: { main: [[{ node: HTTP_NODE, type: 'main', index: 0 }]] } },
			settings: {
				executionOrder: 'v1',
				saveDataSuccessExecution: 'all',
				saveDataErrorExecution: 'all',
			},
		});
		await rest.activateWorkflow(created);
		const before = sim.control.stats().statusesByRoute['GET /schema/lead']?.[200] ?? 0;

		await runThroughWebhook(rest, webhookPath, {});
		const [latest] = await waitForExecutions(rest, created.id, 1, 60_000);
		const execution = await rest.getExecution(latest!.id);
		assert.equal(
			execution.status,
			'success',
			`execution ended ${execution.status}: ${executionError(execution) ?? ''}`,
		);
		const [output] = nodeOutput(execution, HTTP_NODE);
		const fields = (output?.data as { unifiedFields?: unknown[] } | undefined)?.unifiedFields;
		assert.ok(
			Array.isArray(fields) && fields.length > 0,
			'the HTTP Request node did not get the lead schema',
		);
		const after = sim.control.stats().statusesByRoute['GET /schema/lead']?.[200] ?? 0;
		assert.equal(after - before, 1, 'the service did not answer one authenticated schema request');
		await rest.deactivateWorkflow(created);
	},
};
