/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The `watched` case of `npm run bench:n8n`: deliveries per second of the webhook trigger with
 * 5 Fields to Watch at 10,000 leads, against the same trigger without them, in the same n8n.
 *
 * Both workflows listen to lead/update with Fetch Full Lead (watching always reads the lead),
 * on a portal of 10,000 leads; the watched one holds the 5 fields' values of every lead in its
 * static data (its activation lists them), saved whole with every delivery. The service's own
 * deliveries are held back (its receiver "unreachable"); per measurement, `deliveries` leads
 * get a new status in the portal, then their lead/update events are delivered signed, 8 in
 * flight, to one workflow, and timed until every execution finished. Each delivery then starts
 * one execution in both workflows (the watched one sees the status change). The two alternate.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';

import type { N8nRest } from '../../test/e2e/lib/n8n-rest';
import { pollUntil, sleep } from '../../test/e2e/lib/wait';
import type { CredentialRef } from '../../test/e2e/workflows';
import type { RemoteSimulator } from '../sim';
import type { Target } from './figures';
import { postSigned } from './signed-deliveries';
import { triggerOnly } from './workflows';

const PORTAL_LEADS = 10_000;
const WATCHED_FIELDS = ['closeDate', 'industry', 'platform', 'status', 'value'];
const STATUSES = ['open', 'qualified', 'proposal', 'won', 'lost'];
const IN_FLIGHT = 8;
const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

export interface WatchedSetting {
	version: string;
	baseUrl: string;
	rest: N8nRest;
	sim: RemoteSimulator;
	credential: CredentialRef;
	runs: number;
	deliveries: number;
	log: (message: string) => void;
}

interface WatchedRow {
	version: string;
	figure: string;
	unit: string;
	values: number[];
	target?: Target;
}

interface Variant {
	id: string;
	url: string;
	secret: string;
}

/** The events sent again while any is not answered 200 (a run longer than the hold: 503). */
async function deliverUpdates(variant: Variant, events: string[]): Promise<string[]> {
	return await postSigned(variant.url, variant.secret, events.length, IN_FLIGHT, (i) => events[i]);
}

async function activateVariant(setting: WatchedSetting, fields: string[]): Promise<Variant> {
	const parameters = { events: ['lead/update'], fetchFullLead: true, watchedFields: fields };
	const { workflow, webhookId } = triggerOnly('ours', setting.credential, '', parameters);
	const created = await setting.rest.createWorkflow(workflow);
	await setting.rest.activateWorkflow(created);
	const url = `${setting.baseUrl}/webhook/${webhookId}/webhook`;
	const secret = await pollUntil(() => setting.sim.signingSecret(url, 'lead/update'), {
		timeoutMs: 60_000,
		intervalMs: 250,
		what: 'the trigger to subscribe',
	});
	return { id: created.id, url, secret };
}

async function staticDataBytes(rest: N8nRest, workflowId: string): Promise<number> {
	const answer = JSON.parse(await rest.workflowJson(workflowId)) as { data?: unknown };
	const staticData = (answer.data as { staticData?: unknown } | undefined)?.staticData ?? null;
	return JSON.stringify(staticData).length;
}

export async function watchedCase(setting: WatchedSetting, rows: WatchedRow[]): Promise<void> {
	const { rest, sim, log, version } = setting;
	await sim.reset();
	const ids = await sim.seedLeads(PORTAL_LEADS);
	const variants = {
		'without Fields to Watch': await activateVariant(setting, []),
		'5 Fields to Watch': await activateVariant(setting, WATCHED_FIELDS),
	};
	type Name = keyof typeof variants;
	// both activations list the portal (recovery's baseline, and the watched values)
	await sleep(15_000);
	await sim.setDeliveryFaults({ unreachable: true });
	let cursor = 0;
	let round = 0;
	const retried: Record<Name, number> = { 'without Fields to Watch': 0, '5 Fields to Watch': 0 };
	const measure = async (name: Name, count: number): Promise<number> => {
		const variant = variants[name];
		const leads = ids.slice(cursor, cursor + count);
		cursor = (cursor + count) % (ids.length - count);
		round += 1;
		for (const id of leads)
			await sim.portalUpdateLead(id, { status: STATUSES[round % STATUSES.length] });
		const before = await rest.executionCount(variant.id);
		const started = performance.now();
		const timestamp = new Date().toISOString();
		let events = leads.map((id) => JSON.stringify({ id, topic: 'lead/update', timestamp }));
		// as the service does: what was not answered 200 is sent again (the same event)
		for (let attempt = 1; events.length > 0; attempt++) {
			if (attempt > 1) retried[name] += events.length;
			if (attempt > 6) throw new Error(`${name}: ${events.length} deliveries never answered 200`);
			if (attempt > 1) await sleep(1_000);
			events = await deliverUpdates(variant, events);
		}
		await pollUntil(
			async () => {
				if ((await rest.executionCount(variant.id)) < before + count) return undefined;
				const [newest] = await rest.listExecutions(variant.id);
				return newest && DONE.has(newest.status) ? true : undefined;
			},
			{ timeoutMs: 600_000, intervalMs: 100, what: `${count} executions of ${name}` },
		);
		return count / ((performance.now() - started) / 1000);
	};
	log(`${version}: watched: warm-up`);
	for (const name of Object.keys(variants) as Name[]) await measure(name, 10);
	for (const name of Object.keys(retried) as Name[]) retried[name] = 0;
	const perSecond: Record<Name, number[]> = {
		'without Fields to Watch': [],
		'5 Fields to Watch': [],
	};
	const names = Object.keys(variants) as Name[];
	for (let run = 0; run < setting.runs; run++) {
		for (const name of run % 2 ? [...names].reverse() : names)
			perSecond[name].push(await measure(name, setting.deliveries));
		log(
			`${version}: watched, run ${run + 1} (load ${os.loadavg()[0].toFixed(2)}): ${names.map((name) => `${name} ${perSecond[name][run].toFixed(1)}/s`).join(', ')}`,
		);
	}
	await sim.setDeliveryFaults({});
	const where = `${PORTAL_LEADS.toLocaleString('en')} leads, Fetch Full Lead, ${setting.deliveries} deliveries, ${IN_FLIGHT} in flight, until every execution finished`;
	for (const name of names) {
		rows.push({
			version,
			figure: `Trigger, ${name} (${where})`,
			unit: 'deliveries/s',
			values: perSecond[name],
		});
		rows.push({
			version,
			figure: `Trigger, ${name}: deliveries answered 503 (a run longer than the hold) and sent again, all runs`,
			unit: 'deliveries',
			values: [retried[name]],
		});
	}
	rows.push({
		version,
		figure: 'Trigger, 5 Fields to Watch / without',
		unit: 'ratio',
		values: perSecond['5 Fields to Watch'].map(
			(value, run) => value / perSecond['without Fields to Watch'][run],
		),
	});
	for (const name of names) {
		const bytes = await staticDataBytes(rest, variants[name].id);
		rows.push({
			version,
			figure: `Trigger, ${name}: static data n8n stored`,
			unit: 'bytes',
			values: [bytes],
		});
		await rest.deactivateWorkflow({ id: variants[name].id, active: true });
	}
}
