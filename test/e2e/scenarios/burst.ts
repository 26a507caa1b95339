/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A burst of lead events (a partner's bulk import): 300 signed lead/create deliveries sent 50 at
 * a time, each retried as a brief service would (5 times over about 6 seconds, then given up).
 * The trigger accepts each as soon as n8n has saved it and runs them a few at a time: every
 * event runs once, the service gives up on none, and n8n's readiness endpoint answers
 * throughout. The figures are printed (`npm run bench:n8n -- --only burst` measures more).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

import { BRIEF_DELIVERY_RETRY_DELAYS_MS } from '../../simulator/personality';
import type { Subscription } from '../../simulator/types';
import { nodeOutput } from '../lib/execution-data';
import { httpRequest } from '../lib/http';
import { activateLeadTrigger, signedDelivery } from '../lib/lead-trigger';
import type { N8nRest } from '../lib/n8n-rest';
import { pollUntil, sleep } from '../lib/wait';
import { NODE } from '../workflows';
import type { Scenario } from './context';

const BURST = 300;
const IN_FLIGHT = 50;

/** One delivery as a brief service sends it: the attempts' statuses (0: no answer). */
async function deliverBriefly(subscription: Subscription, leadId: string, timestamp: string) {
	const statuses: number[] = [];
	for (const delayMs of [0, ...BRIEF_DELIVERY_RETRY_DELAYS_MS]) {
		await sleep(delayMs);
		const answer = await signedDelivery(subscription, leadId, timestamp).catch(() => undefined);
		statuses.push(answer?.status ?? 0);
		if (answer?.status === 200) break;
	}
	return statuses;
}

/** n8n's readiness endpoint, probed every second until stopped. */
function probeReadiness(baseUrl: string) {
	let stopped = false;
	const failed: string[] = [];
	let probes = 0;
	const loop = (async () => {
		while (!stopped) {
			probes++;
			const answer = await httpRequest(`${baseUrl}/healthz/readiness`, { timeoutMs: 2_000 }).catch(
				(error: unknown) => ({ status: 0, text: String(error) }),
			);
			if (answer.status !== 200) failed.push(`${answer.status} ${answer.text.slice(0, 80)}`);
			await sleep(1_000);
		}
	})();
	return async () => {
		stopped = true;
		await loop;
		return { probes, failed };
	};
}

async function ranLeadIds(rest: N8nRest, workflowId: string): Promise<string[]> {
	const executions = await rest.allExecutions(workflowId);
	const ids: string[] = [];
	for (const summary of executions) {
		const item = nodeOutput(await rest.getExecution(summary.id), NODE.trigger)[0] as
			| { event?: { id?: string } }
			| undefined;
		ids.push(String(item?.event?.id));
	}
	return ids;
}

export const burstScenario: Scenario = {
	name: `a burst of ${BURST} deliveries at once, retried briefly: every event runs once, none given up, n8n ready throughout`,
	async run({ n8n, rest, sim, credential }) {
		const { created, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		const creates = subscriptions.find((subscription) => subscription.topic === 'lead/create');
		assert.ok(creates, 'a subscription to lead/create');
		const leadIds = sim.control.seedLeads(BURST).map((lead) => lead.id);
		const timestamp = new Date().toISOString();
		const stopProbes = probeReadiness(n8n.baseUrl);
		const started = performance.now();
		const outcomes: number[][] = [];
		let next = 0;
		const sender = async () => {
			while (next < leadIds.length)
				outcomes.push(await deliverBriefly(creates, leadIds[next++], timestamp));
		};
		await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
		const answeredS = (performance.now() - started) / 1000;
		await pollUntil(
			async () => ((await rest.executionCount(created.id)) >= BURST ? true : undefined),
			{ timeoutMs: 5 * 60_000, intervalMs: 500, what: `${BURST} executions of the burst` },
		);
		const ranS = (performance.now() - started) / 1000;
		const readiness = await stopProbes();
		const firstAttempt = outcomes.filter((statuses) => statuses[0] === 200).length;
		const givenUp = outcomes.filter((statuses) => !statuses.includes(200)).length;
		const attempts = outcomes.reduce((sum, statuses) => sum + statuses.length, 0);
		process.stdout.write(
			`      n8n ${n8n.version}: ${BURST} deliveries ${IN_FLIGHT} at a time: ${firstAttempt} answered 200 at the first attempt, ${givenUp} given up, ${attempts} attempts; all answered in ${answeredS.toFixed(1)} s, all ran in ${ranS.toFixed(1)} s; readiness probes failed ${readiness.failed.length} of ${readiness.probes}\n`,
		);
		assert.equal(givenUp, 0, 'deliveries the service gave up on');
		await sleep(2_000); // a run twice would show up as an execution more
		const ran = await ranLeadIds(rest, created.id);
		assert.equal(ran.length, BURST, 'executions of the burst');
		assert.deepEqual([...ran].sort(), [...leadIds].sort(), 'each lead of the burst ran once');
		assert.deepEqual(readiness.failed, [], 'readiness probes that failed during the burst');
		await rest.deactivateWorkflow(created);
	},
};
