/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Scenario 3: a workflow creates leads (standard, picklist and custom fields) and gets them back;
 * its execution data holds the leads the simulator stored.
 */
import assert from 'node:assert/strict';

import type { Lead, Simulator } from '../../simulator/types';
import { executionError, nodeOutput, waitForExecutions } from '../lib/execution-data';
import type { N8nRest } from '../lib/n8n-rest';
import { runThroughWebhook } from '../lib/run-workflow';
import { createAndGetLeadsWorkflow, NODE, type CredentialRef } from '../workflows';
import type { Scenario } from './context';

export const INPUT_LEADS = [
	{
		firstName: 'Ada',
		lastName: 'Lovelace',
		email: 'ada@example.com',
		platform: 'hubspot',
		industry: 'saas',
		employeeCount: 40,
	},
	{
		firstName: 'Grace',
		lastName: 'Hopper',
		email: 'grace@example.com',
		platform: 'salesforce',
		industry: 'fintech',
		employeeCount: 1200,
	},
];

export interface LeadsRun {
	workflowId: string;
	executionId: string;
	/** the leads the Get node output, in order */
	fetched: Array<Record<string, unknown>>;
}

/** Imports and activates the create-and-get workflow; returns a function that runs it once. */
export async function deployLeadsWorkflow(
	rest: N8nRest,
	sim: Simulator,
	credential: CredentialRef,
) {
	const { workflow, webhookPath } = createAndGetLeadsWorkflow(credential, {
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0]!.id,
	});
	const created = await rest.createWorkflow(workflow);
	const active = await rest.activateWorkflow(created);
	assert.ok(active.active, 'the workflow is not active after activation');
	let runs = 0;
	const run = async (): Promise<LeadsRun> => {
		runs += 1;
		const response = await runThroughWebhook(rest, webhookPath, { leads: INPUT_LEADS });
		const executions = await waitForExecutions(rest, created.id, runs, 60_000);
		const latest = executions[0]!;
		const execution = await rest.getExecution(latest.id);
		const error = executionError(execution);
		assert.equal(
			execution.status,
			'success',
			`execution ${latest.id} ended ${execution.status}: ${error ?? response.text.slice(0, 300)}`,
		);
		assert.equal(
			response.status,
			200,
			`the webhook answered ${response.status}: ${response.text.slice(0, 300)}`,
		);
		return {
			workflowId: created.id,
			executionId: latest.id,
			fetched: nodeOutput(execution, NODE.get),
		};
	};
	return { workflow: created, run };
}

/** The fields we sent, as the service must have stored them. */
function assertLeadMatchesInput(stored: Lead, input: (typeof INPUT_LEADS)[number]): void {
	assert.equal(stored.firstName, input.firstName);
	assert.equal(stored.lastName, input.lastName);
	assert.equal(stored.email, input.email);
	assert.equal(stored.platform, input.platform);
	assert.equal(
		stored.customFields.industry,
		input.industry,
		`customFields.industry of ${stored.id}`,
	);
	assert.equal(
		Number(stored.customFields.employeeCount),
		input.employeeCount,
		`customFields.employeeCount of ${stored.id}`,
	);
}

export const createAndGetLeads: Scenario = {
	name: 'workflow creates leads with custom and picklist fields and gets them back',
	async run({ rest, sim, credential }) {
		const before = new Set(sim.control.listLeads().map((lead) => lead.id));
		const { workflow, run } = await deployLeadsWorkflow(rest, sim, credential);
		const { fetched } = await run();

		const createdInService = sim.control.listLeads().filter((lead) => !before.has(lead.id));
		assert.equal(
			createdInService.length,
			INPUT_LEADS.length,
			`the service got ${createdInService.length} new leads`,
		);
		assert.equal(fetched.length, INPUT_LEADS.length, `the Get node output ${fetched.length} items`);
		for (const [index, input] of INPUT_LEADS.entries()) {
			const item = fetched[index]!;
			const stored = sim.control.getLead(String(item.id));
			assert.ok(stored, `the execution holds lead ${String(item.id)}, unknown to the service`);
			assertLeadMatchesInput(stored, input);
			// The execution data is the service's lead, field for field (JSON round trip on both sides).
			assert.deepEqual(
				item,
				JSON.parse(JSON.stringify(stored)),
				`execution data of lead ${stored.id} differs from the service's`,
			);
		}
		await rest.deactivateWorkflow(workflow);
	},
};
