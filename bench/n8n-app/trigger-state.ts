/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The trigger-state case of `npm run bench:n8n`: what the trigger's static data costs a
 * delivery. n8n saves a workflow's static data whole, so every delivery writes all of it: the
 * events remembered, the ledger of lead versions and, with lead/delete chosen, the lead ids of
 * the last listing. One trigger workflow per portal size (an empty portal, 10,000 and 50,000
 * leads), each activated on its portal (its baseline lists every lead: ids kept, the ledger
 * filled up to its bound), then deliveries sent 8 at a time to each in turn, runs rotated.
 * Deliveries per second count from the first send until the last is answered: the trigger
 * answers once the run finished and was saved (issue 34), so that is every execution done.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import type { N8nRest } from '../../test/e2e/lib/n8n-rest';
import { pollUntil } from '../../test/e2e/lib/wait';
import type { RemoteSimulator } from '../sim';
import { TRIGGER_NODE_TYPE, type CredentialRef } from '../../test/e2e/workflows';
import { MEASURED, type BenchWorkflow } from './workflows';

export const STATE_SIZES = [0, 10_000, 50_000];

export interface TriggerStateOptions {
	sizes: number[];
	deliveries: number;
	runs: number;
}

export interface TriggerStateFigures {
	/** portal size → deliveries per second, one per run */
	perSecond: Map<number, number[]>;
	/** portal size → bytes of the workflow's static data after the runs (REST, JSON) */
	staticDataBytes: Map<number, number>;
}

/** The trigger on all three events (lead/delete keeps the ids), Fetch Full Lead off. */
function stateTrigger(credential: CredentialRef): { workflow: BenchWorkflow; webhookId: string } {
	const webhookId = randomUUID();
	return {
		webhookId,
		workflow: {
			name: `bench trigger state ${webhookId.slice(0, 8)}`,
			nodes: [
				{
					id: randomUUID(),
					name: MEASURED,
					position: [0, 0],
					webhookId,
					type: TRIGGER_NODE_TYPE,
					typeVersion: 1,
					credentials: { partnerLeadsApi: credential },
					parameters: {
						events: ['lead/create', 'lead/update', 'lead/delete'],
						fetchFullLead: false,
						options: {},
					},
				},
			],
			connections: {},
			settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		},
	};
}

/** The workflow's static data as n8n's REST API returns it (null: none). */
export async function staticDataOf(
	rest: N8nRest,
	workflowId: string,
): Promise<Record<string, unknown> | null> {
	const answer = JSON.parse(await rest.workflowJson(workflowId)) as {
		data?: { staticData?: Record<string, unknown> };
	};
	return answer.data?.staticData ?? null;
}

/** Bytes of JSON a static data takes. */
export const jsonBytes = (staticData: unknown) => Buffer.byteLength(JSON.stringify(staticData));

/** The workflow's static data as n8n's REST API returns it, in bytes of JSON. */
export async function staticDataBytes(rest: N8nRest, workflowId: string): Promise<number> {
	return jsonBytes(await staticDataOf(rest, workflowId));
}

export interface Deliverer {
	(url: string, secret: string, count: number, inFlight: number): Promise<number>;
}

interface Trigger {
	size: number;
	id: string;
	url: string;
	secret: string;
}

/** Seeds the portal up to `size` leads and activates a trigger on it (its baseline lists them). */
async function triggerOn(
	setting: { rest: N8nRest; sim: RemoteSimulator; baseUrl: string; credential: CredentialRef },
	size: number,
): Promise<Trigger> {
	const { rest, sim } = setting;
	const missing = size - (await sim.leadCount());
	for (let seeded = 0; seeded < missing; seeded += 5_000)
		await sim.seedLeads(Math.min(5_000, missing - seeded));
	const { workflow, webhookId } = stateTrigger(setting.credential);
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	const url = `${setting.baseUrl}/webhook/${webhookId}/webhook`;
	const secret = await pollUntil(() => sim.signingSecret(url, 'lead/create'), {
		timeoutMs: 120_000,
		intervalMs: 250,
		what: `the trigger on ${size} leads to subscribe`,
	});
	// the baseline (a listing of every lead) is saved when the activation ends
	await pollUntil(async () => ((await staticDataBytes(rest, created.id)) > 2 ? true : undefined), {
		timeoutMs: 300_000,
		intervalMs: 500,
		what: `the baseline of the trigger on ${size} leads`,
	});
	return { size, id: created.id, url, secret };
}

export async function triggerStateCase(
	setting: { rest: N8nRest; sim: RemoteSimulator; baseUrl: string; credential: CredentialRef },
	options: TriggerStateOptions,
	deliver: Deliverer,
	log: (message: string) => void,
): Promise<TriggerStateFigures> {
	const triggers: Trigger[] = [];
	for (const size of [...options.sizes].sort((a, b) => a - b)) {
		triggers.push(await triggerOn(setting, size));
		log(
			`trigger state: ${size} leads, static data ${await staticDataBytes(setting.rest, triggers.at(-1)!.id)} bytes`,
		);
	}
	const figures: TriggerStateFigures = { perSecond: new Map(), staticDataBytes: new Map() };
	const measure = async (trigger: Trigger, count: number) => {
		const started = performance.now();
		const refused = await deliver(trigger.url, trigger.secret, count, 8);
		if (refused > 0) throw new Error(`${refused} of ${count} deliveries not answered 200`);
		return count / ((performance.now() - started) / 1000);
	};
	for (const trigger of triggers) await measure(trigger, 10);
	for (let run = 0; run < options.runs; run++) {
		const shift = run % triggers.length;
		for (const trigger of [...triggers.slice(shift), ...triggers.slice(0, shift)]) {
			const perSecond = await measure(trigger, options.deliveries);
			figures.perSecond.set(trigger.size, [
				...(figures.perSecond.get(trigger.size) ?? []),
				perSecond,
			]);
		}
		log(
			`trigger state, run ${run + 1}: ${triggers.map((trigger) => `${trigger.size} leads ${figures.perSecond.get(trigger.size)!.at(-1)!.toFixed(1)}/s`).join(', ')}`,
		);
	}
	for (const trigger of triggers) {
		figures.staticDataBytes.set(trigger.size, await staticDataBytes(setting.rest, trigger.id));
		await setting.rest.deactivateWorkflow({ id: trigger.id, active: true });
	}
	return figures;
}
