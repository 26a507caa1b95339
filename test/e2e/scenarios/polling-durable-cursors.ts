/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The polling trigger in n8n 2.41 with durable poll cursors: the scheduler runs each poll and
 * commits the trigger's state with the execution it starts, in one transaction. n8n is
 * restarted with the four variables on; the polling scenario gives the same runs as without
 * them; then n8n is killed (SIGKILL) while a poll fetches full leads: that poll committed
 * nothing, so the next one after the restart runs its window, each change once. It runs in an
 * n8n of its own (Scenario.ownN8n), beside the line's other scenarios.
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import type { WorkflowSummary } from '../lib/n8n-rest';
import { pollUntil, sleep } from '../lib/wait';
import type { Scenario, ScenarioContext } from './context';
import { expectEachChangeRunsOnce, nextPoll, polledEvents } from './polling';

/** What turns durable poll cursors on in n8n 2.36+ (the first alone is refused with a warning). */
export const DURABLE_POLL_CURSORS: Record<string, string> = {
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

/** While a poll waits for a full lead, n8n is killed; the changes run once after the restart. */
async function expectKillDuringPollRunsEachChangeOnce(
	{ n8n, rest, sim }: ScenarioContext,
	workflow: WorkflowSummary,
	untouched: string[],
): Promise<void> {
	const before = await polledEvents(rest, workflow.id);
	const fetches = () => sim.control.stats().byRoute['GET /leads/:id'] ?? 0;
	const fetched = fetches();
	sim.control.setFaults('GET /leads/:id', { latencyMs: 20_000 });
	const c = sim.control.portalCreateLead({ firstName: 'Polled', lastName: 'C' });
	sim.control.portalUpdateLead(untouched[0]!, { value: 31 });
	sim.control.portalDeleteLead(untouched[1]!);
	await pollUntil(() => (fetches() > fetched ? 1 : undefined), {
		timeoutMs: 90_000,
		intervalMs: 100,
		what: 'a poll fetching a full lead',
	});
	let d = '';
	await n8n.restart({
		kill: true,
		whileStopped: async () => {
			sim.control.clearFaults();
			d = sim.control.portalCreateLead({ firstName: 'Polled', lastName: 'D' }).id;
			await sleep(2_500);
		},
	});
	await waitForExecutions(rest, workflow.id, before.length + 1, 150_000);
	await nextPoll(sim);
	assert.deepEqual(await polledEvents(rest, workflow.id), [
		...before,
		[
			`lead/create ${c.id}`,
			`lead/create ${d}`,
			`lead/delete ${untouched[1]!}`,
			`lead/update ${untouched[0]!}`,
		].sort(),
	]);
}

export const pollingWithDurableCursors: Scenario = {
	name: 'polling trigger with durable poll cursors: the same runs, and a kill -9 during a poll runs each change once',
	appliesTo: (major) => major >= 2,
	// its n8n restarts with the variables on and stays so: no other scenario shares it
	ownN8n: true,
	async run(context) {
		const { n8n, rest } = context;
		await n8n.restart({ environment: DURABLE_POLL_CURSORS });
		const { workflow, untouched } = await expectEachChangeRunsOnce(context);
		// the trigger's state lives in n8n's poller_state table, not in static data
		assert.ok(
			!(await rest.workflowJson(workflow.id)).includes('"clock":"service"'),
			'the poll state is in static data: durable poll cursors are not on',
		);
		await expectKillDuringPollRunsEachChangeOnce(context, workflow, untouched);
		await rest.deactivateWorkflow(workflow);
	},
};
