/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Lead operations run by the workers, the access token shared through n8n's credential store:
 * one token for runs spread over both workers, and what an expiry costs while both are busy.
 */
import assert from 'node:assert/strict';

import { executionError, waitForExecutions } from '../lib/execution-data';
import { runThroughWebhook } from '../lib/run-workflow';
import { INPUT_LEADS } from '../scenarios/create-and-get';
import { createAndGetLeadsWorkflow } from '../workflows';
import type { QueueScenario } from './context';

export const leadOperationsOnWorkers: QueueScenario = {
	name: 'queue mode: Create and Get run on the workers; one token for all runs, and after an expiry with both workers busy',
	async run({ rest, webhooks, sim, credential, figures }) {
		const { workflow, webhookPath } = createAndGetLeadsWorkflow(credential, {
			partnerOrganizationId: sim.defaultPartnerOrganization.id,
			agentId: sim.defaultAgents[0]!.id,
		});
		const created = await rest.createWorkflow(workflow);
		await rest.activateWorkflow(created);
		const leadsBefore = sim.control.listLeads().length;
		sim.control.resetStats();
		let runs = 0;
		const runTogether = async (count: number) => {
			const answers = await Promise.all(
				Array.from(
					{ length: count },
					async () => await runThroughWebhook(webhooks, webhookPath, { leads: INPUT_LEADS }),
				),
			);
			runs += count;
			for (const answer of answers)
				assert.equal(
					answer.status,
					200,
					`a run answered ${answer.status}: ${answer.text.slice(0, 200)}`,
				);
			const executions = await waitForExecutions(rest, created.id, runs, 90_000);
			for (const summary of executions) {
				const execution = await rest.getExecution(summary.id);
				assert.equal(
					execution.status,
					'success',
					`execution ${summary.id} ended ${execution.status}: ${executionError(execution) ?? ''}`,
				);
			}
		};
		await runTogether(2);
		await runTogether(2);
		await runTogether(2);
		const tokensForSixRuns = sim.control.stats().tokenRequests;
		figures.set('token requests for 6 runs over 2 workers', tokensForSixRuns);
		assert.ok(
			tokensForSixRuns >= 1 && tokensForSixRuns <= 2,
			`6 runs asked for ${tokensForSixRuns} tokens`,
		);

		sim.control.expireTokens();
		sim.control.resetStats();
		await runTogether(4);
		const tokensAfterExpiry = sim.control.stats().tokenRequests;
		figures.set('token requests after an expiry, 4 runs at once on 2 workers', tokensAfterExpiry);
		assert.ok(
			tokensAfterExpiry >= 1 && tokensAfterExpiry <= 4,
			`after the expiry, 4 runs asked for ${tokensAfterExpiry} tokens`,
		);
		assert.equal(
			sim.control.listLeads().length,
			leadsBefore + runs * INPUT_LEADS.length,
			'a lead is missing or was created twice',
		);
		await rest.deactivateWorkflow(created);
	},
};
