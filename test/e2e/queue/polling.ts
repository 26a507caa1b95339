/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The polling trigger in queue mode: only the main process (the leader) polls, the
 * executions run on the workers. A create, an update and a delete in the portal run once in
 * one execution; the polls after it run nothing again; list requests stay those of one poll a
 * minute.
 */
import assert from 'node:assert/strict';

import { waitForExecutions } from '../lib/execution-data';
import { pollUntil, sleep } from '../lib/wait';
import { pollingWorkflow, polledEvents } from '../scenarios/polling';
import type { QueueScenario } from './context';

function listRequests(context: Parameters<QueueScenario['run']>[0]): number {
	return context.sim.control.stats().byRoute['GET /leads'] ?? 0;
}

export const pollingInQueueMode: QueueScenario = {
	name: 'queue mode: polling trigger: one poll a minute on the main process, each change runs once on the workers',
	async run(context) {
		const { rest, sim, figures } = context;
		const seeded = sim.control.seedLeads(4);
		const created = await rest.createWorkflow(pollingWorkflow(context.credential));
		await rest.activateWorkflow(created);
		await sleep(2_500); // past the baseline's second and the settle margin

		const a = sim.control.portalCreateLead({ firstName: 'Queued', lastName: 'A' });
		sim.control.portalUpdateLead(seeded[0]!.id, { value: 31 });
		sim.control.portalDeleteLead(seeded[1]!.id);
		await waitForExecutions(rest, created.id, 1, 150_000);

		// Two more polls: nothing runs again, and the list is read as by one poller.
		const start = listRequests(context);
		const startedAt = Date.now();
		let polls = 0;
		let seen = start;
		await pollUntil(
			async () => {
				const now = listRequests(context);
				if (now > seen) {
					polls++;
					await sleep(5_000); // the rest of this poll's requests
					seen = listRequests(context);
				}
				return polls >= 2 ? true : undefined;
			},
			{ timeoutMs: 180_000, intervalMs: 500, what: 'two more polls' },
		);
		const minutes = (Date.now() - startedAt) / 60_000;
		await sleep(3_000);
		assert.deepEqual(await polledEvents(rest, created.id), [
			[`lead/create ${a.id}`, `lead/delete ${seeded[1]!.id}`, `lead/update ${seeded[0]!.id}`],
		]);
		const perMinute = (listRequests(context) - start) / minutes;
		assert.ok(
			perMinute <= 6,
			`${perMinute.toFixed(1)} list requests a minute: more than one poller?`,
		);
		figures.set('polling: list requests a minute (6 leads, pages of 100)', perMinute.toFixed(1));
		await rest.deactivateWorkflow(created);
	},
};
