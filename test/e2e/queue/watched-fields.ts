/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Fields to Watch in queue mode: two updates of one lead reach the two webhook processes at the
 * same moment. Each process compares the lead it fetched with the values the database held when
 * its delivery arrived; there is no lock between them (n8n gives webhooks none), so both may run
 * with the same `from`. The other outcome, one change missed, would need a process to compare
 * with values newer than the lead it fetched, which the comparison never does. Measured and
 * reported, not asserted beyond "nothing missed": per pair, how many runs and with which `from`,
 * and the same pair 1 s apart (the second process then sees the first one's values).
 */
import assert from 'node:assert/strict';

import { nodeOutput } from '../lib/execution-data';
import { signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import type { Lead, Subscription } from '../../simulator/types';
import { leadTriggerWorkflow, NODE } from '../workflows';
import type { QueueContext, QueueScenario } from './context';
import { at } from './trigger';

const PAIRS = 8;

type Watched = { event: { id: string }; changes?: Record<string, { from?: unknown; to: unknown }> };

async function outputsByLead(context: QueueContext, workflowId: string) {
	const byLead = new Map<string, Watched[]>();
	for (const summary of await context.rest.listExecutions(workflowId)) {
		const [output] = nodeOutput(
			await context.rest.getExecution(summary.id),
			NODE.trigger,
		) as Watched[];
		if (!output) continue;
		byLead.set(output.event.id, [...(byLead.get(output.event.id) ?? []), output]);
	}
	return byLead;
}

/** Two changes of the lead (status, then value), then their two events to the two processes. */
async function pair(
	context: QueueContext,
	onUpdate: Subscription,
	lead: Lead,
	apartMs: number,
): Promise<void> {
	const [first, second] = context.cluster.webhooks;
	context.sim.control.portalUpdateLead(lead.id, { status: 'won' });
	const firstTime = new Date().toISOString();
	await sleep(5);
	context.sim.control.portalUpdateLead(lead.id, { value: 1 });
	const secondTime = new Date().toISOString();
	const one = signedDelivery(at(onUpdate, first!.baseUrl), lead.id, firstTime);
	if (apartMs > 0) await Promise.all([one, sleep(apartMs)]);
	const two = signedDelivery(at(onUpdate, second!.baseUrl), lead.id, secondTime);
	for (const answer of await Promise.all([one, two]))
		assert.equal(answer.status, 200, `a delivery got ${answer.status}`);
}

/** Runs per lead, and whether each run had the value before both changes as `from`. */
function tally(byLead: Map<string, Watched[]>, leads: Lead[]) {
	const runs = leads.map((lead) => byLead.get(lead.id) ?? []);
	const fromBoth = (output: Watched) =>
		output.changes?.status?.from === 'open' && output.changes?.value?.from === 0;
	return {
		missed: runs.filter((list) => list.length === 0).length,
		once: runs.filter((list) => list.length === 1).length,
		twice: runs.filter((list) => list.length === 2).length,
		sameFromTwice: runs.filter((list) => list.length === 2 && list.every(fromBoth)).length,
	};
}

export const watchedFieldsInQueueMode: QueueScenario = {
	name: 'queue mode, watched fields: two updates of one lead at the same moment on the two webhook processes (measured: runs per lead, their from); nothing missed',
	async run(context) {
		const { rest, sim, credential, figures } = context;
		const leads = sim.control.seedLeads(
			Array.from({ length: 2 * PAIRS }, () => ({ status: 'open', value: 0 })),
		);
		const parameters = {
			events: ['lead/update'],
			fetchFullLead: true,
			watchedFields: ['status', 'value'],
		};
		const { workflow, webhookId } = leadTriggerWorkflow(credential, parameters);
		const created = await rest.activateWorkflow(await rest.createWorkflow(workflow));
		const onUpdate = await pollUntil(
			() => subscriptionsOf(sim, webhookId).find((s) => s.topic === 'lead/update'),
			{ timeoutMs: 30_000, what: 'the watching trigger to subscribe' },
		);
		await sleep(3_000); // activation listed the portal: every lead's values are known
		sim.control.setDeliveryFaults({ unreachable: true });
		const together = leads.slice(0, PAIRS);
		const apart = leads.slice(PAIRS);
		for (const lead of together) await pair(context, onUpdate, lead, 0);
		for (const lead of apart) await pair(context, onUpdate, lead, 1_000);
		await sleep(8_000);
		sim.control.setDeliveryFaults({});
		const byLead = await outputsByLead(context, created.id);
		const atOnce = tally(byLead, together);
		const oneSecond = tally(byLead, apart);
		const line = (t: ReturnType<typeof tally>) =>
			`${t.once} once, ${t.twice} twice (${t.sameFromTwice} with the same from both times), ${t.missed} missed`;
		figures.set(
			`watched fields: ${PAIRS} leads, two updates at the same moment on the two webhook processes`,
			line(atOnce),
		);
		figures.set(
			`watched fields: ${PAIRS} leads, the second update 1 s later on the other process`,
			line(oneSecond),
		);
		assert.equal(atOnce.missed + oneSecond.missed, 0, 'a change of a watched field was missed');
		await rest.deactivateWorkflow(created);
	},
};
