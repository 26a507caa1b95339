/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The polling trigger in the real app, n8n on plain http: activated with Poll Times every
 * minute (n8n 2.41 refuses anything more often), the leads present at activation do not run;
 * a create, an update and a delete in the portal each run once at the next poll; n8n restarted
 * with changes made while it was stopped: they run once when it is back; a later poll runs
 * nothing again.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import type { Simulator } from '../../simulator/types';
import { nodeOutput, waitForExecutions } from '../lib/execution-data';
import type { N8nRest, WorkflowSummary } from '../lib/n8n-rest';
import { pollUntil, sleep } from '../lib/wait';
import { PACKAGE_NAME, type CredentialRef, type WorkflowDefinition } from '../workflows';
import type { Scenario, ScenarioContext } from './context';

export const NODE_NAME = 'Partner Leads Polling Trigger';

export function pollingWorkflow(
	credential: CredentialRef,
	parameters: Record<string, unknown> = {
		events: ['lead/create', 'lead/update', 'lead/delete'],
		fetchFullLead: true,
	},
): WorkflowDefinition {
	return {
		name: `e2e polling trigger ${randomUUID().slice(0, 8)}`,
		nodes: [
			{
				id: randomUUID(),
				name: NODE_NAME,
				type: `${PACKAGE_NAME}.partnerLeadsPollingTrigger`,
				typeVersion: 1,
				position: [0, 0],
				credentials: { partnerLeadsApi: credential },
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
			},
		],
		connections: {},
		settings: {
			executionOrder: 'v1',
			saveDataSuccessExecution: 'all',
			saveDataErrorExecution: 'all',
		},
	};
}

type Polled = { event: { id: string; topic: string }; polled?: boolean; lead?: { id?: string } };

/** Every item of every execution, oldest execution first, as `topic id`. */
export async function polledEvents(rest: N8nRest, workflowId: string): Promise<string[][]> {
	const executions = [...(await rest.listExecutions(workflowId))].reverse();
	const items: string[][] = [];
	for (const summary of executions) {
		const outputs = nodeOutput(await rest.getExecution(summary.id), NODE_NAME) as Polled[];
		assert.ok(
			outputs.every((output) => output.polled === true),
			'an item not marked polled',
		);
		items.push(outputs.map((output) => `${output.event.topic} ${output.event.id}`).sort());
	}
	return items;
}

/** The next poll lists the leads (the simulator counts it) and its execution had time to start. */
export async function nextPoll(sim: Simulator): Promise<void> {
	const listed = sim.control.stats().byRoute['GET /leads'] ?? 0;
	await pollUntil(
		() => ((sim.control.stats().byRoute['GET /leads'] ?? 0) > listed ? 1 : undefined),
		{
			timeoutMs: 90_000,
			intervalMs: 500,
			what: 'the next poll',
		},
	);
	await sleep(3_000);
}

/**
 * Activated with leads in the portal, a create, an update and a delete run once at the next
 * poll; n8n restarted with changes made while it was stopped (one the delete of a lead created
 * since the baseline): they run once when it is back;
 * a later poll runs nothing again. Returns the workflow, still active, and two leads it left alone.
 */
export async function expectEachChangeRunsOnce({
	n8n,
	rest,
	sim,
	credential,
}: ScenarioContext): Promise<{ workflow: WorkflowSummary; untouched: string[] }> {
	const seeded = sim.control.seedLeads(5);
	const created = await rest.createWorkflow(pollingWorkflow(credential));
	await rest.activateWorkflow(created);
	await sleep(2_500); // past the baseline's second (lead times may be whole seconds) and the settle margin

	const a = sim.control.portalCreateLead({ firstName: 'Polled', lastName: 'A' });
	// created since the baseline, known from its polled create only, deleted while n8n is stopped
	const c = sim.control.portalCreateLead({ firstName: 'Polled', lastName: 'C' });
	sim.control.portalUpdateLead(seeded[0]!.id, { value: 21 });
	sim.control.portalDeleteLead(seeded[1]!.id);
	const changedAt = Date.now();
	await waitForExecutions(rest, created.id, 1, 150_000);
	const firstAfterMs = Date.now() - changedAt;

	let b = '';
	await n8n.restart({
		whileStopped: async () => {
			b = sim.control.portalCreateLead({ firstName: 'Polled', lastName: 'B' }).id;
			sim.control.portalUpdateLead(a.id, { value: 22 });
			sim.control.portalDeleteLead(seeded[2]!.id);
			sim.control.portalDeleteLead(c.id);
			await sleep(2_500);
		},
	});
	await waitForExecutions(rest, created.id, 2, 150_000);

	// One more poll runs nothing again.
	await nextPoll(sim);
	assert.deepEqual(await polledEvents(rest, created.id), [
		[
			`lead/create ${a.id}`,
			`lead/create ${c.id}`,
			`lead/delete ${seeded[1]!.id}`,
			`lead/update ${seeded[0]!.id}`,
		].sort(),
		[
			`lead/create ${b}`,
			`lead/delete ${c.id}`,
			`lead/delete ${seeded[2]!.id}`,
			`lead/update ${a.id}`,
		].sort(),
	]);
	process.stdout.write(
		`      n8n ${n8n.version}: first polled execution ${firstAfterMs} ms after the changes\n`,
	);
	return { workflow: created, untouched: [seeded[3]!.id, seeded[4]!.id] };
}

export const pollingTrigger: Scenario = {
	name: 'polling trigger: creates, updates and deletes between polls run once, also across a restart',
	async run(context) {
		const { workflow } = await expectEachChangeRunsOnce(context);
		await context.rest.deactivateWorkflow(workflow);
	},
};
