/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A workflow published again (a changed version) while a bulk import runs. n8n removes the
 * workflow and adds it again: it deletes the old version's webhooks (the trigger unsubscribes),
 * closes its trigger, creates the new subscriptions and starts the new trigger. The executions
 * under way finish and none runs again (the new trigger takes them over); the events answered
 * 200 and not run yet run in the new version; what the service had not delivered to the old
 * subscriptions, the check for missed events finds. In the end every lead created ran once.
 */
import assert from 'node:assert/strict';

import { LEAD_TOPIC_COUNT, subscriptionsOf } from '../lib/lead-trigger';
import { startReceiver, type ReceivedRequest } from '../lib/receiver';
import { pollUntil, sleep } from '../lib/wait';
import { burstWorkflow } from './burst';
import type { Scenario } from './context';

/** Leads the partner imports. */
const LEADS = 40;

/** How long "your system" takes to answer each of the workflow's two requests. */
const SYSTEM_ANSWER_MS = 1_000;

/** The lead id an HTTP Request node of the workflow posted (the event, as JSON). */
function leadIdOf(request: ReceivedRequest): string {
	const event = request.body as { id?: unknown };
	return String(event.id);
}

export const publishedAgainDuringBurst: Scenario = {
	name: 'a workflow published again during a bulk import: the executions under way finish, every lead created runs once, none again',
	async run({ n8n, rest, sim, credential }) {
		const receiver = await startReceiver(() => 200, { delayMs: SYSTEM_ANSWER_MS });
		try {
			const { workflow, webhookId } = burstWorkflow(credential, receiver.url);
			const created = await rest.createWorkflow(workflow);
			await rest.activateWorkflow(created);
			await pollUntil(
				() => (subscriptionsOf(sim, webhookId).length >= LEAD_TOPIC_COUNT ? true : undefined),
				{ timeoutMs: 30_000, what: 'the trigger to subscribe' },
			);
			const leads = Array.from({ length: LEADS }, (_, index) =>
				sim.control.portalCreateLead({
					firstName: `Again${index}`,
					lastName: 'E2e',
					email: `again${index}@example.com`,
				}),
			);
			const checked = () => receiver.received.filter((request) => request.path === '/check');
			await pollUntil(() => (checked().length >= 3 ? true : undefined), {
				timeoutMs: 60_000,
				what: 'the first executions to be under way',
			});
			const checkedBefore = checked().length;

			// A changed version: Report posts to /report-v2. n8n 1.x activates a saved active
			// workflow again at once; 2.x runs the new version once it is published.
			const report = workflow.nodes.find((node) => node.name === 'Report')!;
			const parameters = report.parameters as Record<string, unknown>;
			parameters.url = `${receiver.url}/report-v2`;
			const updated = await rest.updateWorkflow(created, workflow);
			if (Number(n8n.version.split('.')[0]) >= 2) await rest.activateWorkflow(updated);
			const publishedAt = Date.now();

			const ids = new Set(leads.map((lead) => lead.id));
			const reported = () =>
				receiver.received.filter((request) => request.path.startsWith('/report'));
			// the missed events' check comes 15 s after the new trigger starts, the newest 10 s later
			await pollUntil(() => (new Set(reported().map(leadIdOf)).size >= LEADS ? true : undefined), {
				timeoutMs: 120_000,
				intervalMs: 500,
				what: `every one of the ${LEADS} leads to be reported`,
			});
			await sleep(5_000); // time for a run again to show
			const times = (requests: ReceivedRequest[]) => {
				const counts = new Map<string, number>();
				for (const request of requests)
					counts.set(leadIdOf(request), (counts.get(leadIdOf(request)) ?? 0) + 1);
				return counts;
			};
			const checkedTwice = [...times(checked())].filter(([, count]) => count > 1);
			const reportedTwice = [...times(reported())].filter(([, count]) => count > 1);
			const byNewVersion = reported().filter((request) => request.path === '/report-v2');
			process.stdout.write(
				`      n8n ${n8n.version}: ${LEADS} leads, published again with ${checkedBefore} checked: ` +
					`${reported().length - byNewVersion.length} reported by the old version, ${byNewVersion.length} by the new; ` +
					`all within ${((Date.now() - publishedAt) / 1000).toFixed(0)} s of publishing; checked twice ${checkedTwice.length}\n`,
			);
			assert.deepEqual(new Set(reported().map(leadIdOf)), ids, 'the leads reported');
			assert.deepEqual(checkedTwice, [], 'leads whose workflow ran twice');
			assert.deepEqual(reportedTwice, [], 'leads reported twice');
			assert.ok(byNewVersion.length > 0, 'the new version ran none of the leads');
			await rest.deactivateWorkflow(updated);
		} finally {
			await receiver.close();
		}
	},
};
