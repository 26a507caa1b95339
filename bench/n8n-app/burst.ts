/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The burst case of `npm run bench:n8n` (`--only burst`): the trigger against what a user would
 * build instead, n8n's own Webhook node with an HTTP Request node that fetches the lead with our
 * credential, answering after the last node or on receipt; then a bulk import the service fans
 * out at once.
 *
 * 1. Side by side, rounds rotated: 200 signed lead/update deliveries 16 at a time to each
 *    workflow; deliveries per second from the first send until every execution finished (read
 *    from n8n's executions count), and until the last answer.
 * 2. The burst: 1,000 leads created in the portal at once; the service (its own process, the
 *    'brief' retry schedule: 5 retries over about 6 seconds, then it gives up) sends the
 *    deliveries 64 at a time. Reported: the share answered 200 at the first attempt, the share
 *    the service gave up on, seconds until every event ran, n8n's peak RSS above its start, its
 *    readiness endpoint probed every second, and the static data after it.
 *
 * Both at each portal size (the trigger's static data grows with it: ids kept for deletes; the
 * portal's leads beyond the 200 the deliveries name last changed 4 days ago, as in a real portal:
 * a publish's baseline keeps as run only the leads changed just before it), and
 * with `--history 3000,20000` ours again as if it had seen that many events first (history.ts):
 * the bytes n8n writes per delivery and the deliveries a second as the trigger's history grows.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { nodeOutput } from '../../test/e2e/lib/execution-data';
import { httpRequest } from '../../test/e2e/lib/http';
import type { N8nRest } from '../../test/e2e/lib/n8n-rest';
import { pollUntil, sleep } from '../../test/e2e/lib/wait';
import { getWithOurCredential, type CredentialRef } from '../../test/e2e/workflows';
import { BRIEF_DELIVERY_RETRY_DELAYS_MS } from '../../test/simulator/personality';
import { RemoteSimulator } from '../sim';
import { eventsSeenOf, seedHistory } from './history';
import { postSigned } from './signed-deliveries';
import { jsonBytes, staticDataBytes, staticDataOf } from './trigger-state';
import { MEASURED, triggerOnly, webhook, type BenchWorkflow } from './workflows';

export const BURST_SIZES = [0, 50_000];

export interface BurstOptions {
	/** leads in the portal besides the ones the deliveries name */
	sizes: number[];
	/** events our trigger has seen before it is measured (history.ts): one side of ours per number */
	histories: number[];
	/** leads the bulk import creates */
	burst: number;
	/** deliveries per side and round of the side-by-side part */
	deliveries: number;
	runs: number;
}

export interface BurstSetting {
	version: string;
	baseUrl: string;
	rest: N8nRest;
	pid: number;
	/** n8n's user folder (its SQLite database: history.ts) */
	userFolder: string;
	credentialFor(sim: RemoteSimulator): Promise<CredentialRef>;
	log(message: string): void;
	/** `--profile burst`: n8n's CPU profile over each side's first measured round */
	profiled?<T>(label: string, work: () => Promise<T>): Promise<T>;
}

export interface BurstRow {
	version: string;
	figure: string;
	unit: string;
	values: number[];
}

const SETTINGS = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'all',
	saveDataErrorExecution: 'all',
};

const IN_FLIGHT = 16;

/**
 * Our triggers side by side, at the node's default (one execution per event) with Fetch Full Lead
 * on and off, and with 10 Leads per Execution Under Load chosen (under a backlog up to 10 events
 * share an execution).
 */
const OURS: Array<{ fetchFullLead: boolean; leadsPerExecution?: number; seen?: number }> = [
	{ fetchFullLead: true },
	{ fetchFullLead: false },
	{ fetchFullLead: true, leadsPerExecution: 10 },
];

/** n8n's Webhook node, then an HTTP Request node reading the lead with our credential. */
function webhookWorkflow(
	credential: CredentialRef,
	leadsUrl: string,
	responseMode: 'lastNode' | 'onReceived',
) {
	const path = `bench-burst-${responseMode}-${randomUUID().slice(0, 8)}`;
	const workflow: BenchWorkflow = {
		name: `bench burst webhook ${responseMode}`,
		nodes: [
			webhook(path, responseMode),
			getWithOurCredential('Get Lead', credential, `=${leadsUrl}/{{ $json.body.id }}`),
		],
		connections: { Webhook: { main: [[{ node: 'Get Lead', type: 'main', index: 0 }]] } },
		settings: SETTINGS,
	};
	return { workflow, path };
}

interface Side {
	label: string;
	id: string;
	url: string;
	/** the signing secret (ours); the Webhook node checks none */
	secret: string;
	/** runs share executions (Leads per Execution Under Load): items are counted, not executions */
	together: boolean;
	/** items of the side's executions that ended, by execution id */
	counted: Map<string, number>;
}

/** Events the side's workflow ran: its executions, or the items of those that ended. */
async function eventsRun(rest: N8nRest, side: Side): Promise<number> {
	if (!side.together) return await rest.executionCount(side.id);
	for (const execution of await rest.listExecutions(side.id)) {
		if (side.counted.has(execution.id) || ['new', 'running'].includes(execution.status)) continue;
		side.counted.set(
			execution.id,
			nodeOutput(await rest.getExecution(execution.id), MEASURED).length,
		);
	}
	return [...side.counted.values()].reduce((sum, items) => sum + items, 0);
}

async function publish(rest: N8nRest, workflow: BenchWorkflow): Promise<string> {
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	return created.id;
}

/** Ours, as if it had seen `events` events (history.ts), then published. */
async function publishWithHistory(setting: BurstSetting, workflow: BenchWorkflow, events: number) {
	const created = await setting.rest.createWorkflow(workflow);
	const seeded = seedHistory(setting.userFolder, created.id, MEASURED, events);
	await setting.rest.activateWorkflow(created);
	const kept = await staticDataOf(setting.rest, created.id);
	setting.log(
		`history of ${events} events: ${seeded.bytes} bytes seeded, ${jsonBytes(kept)} after publishing`,
	);
	// the baseline lists the portal anew (its ids, the versions before it go); the events seen stay
	const keptEvents = eventsSeenOf(kept?.[`node:${MEASURED}`]);
	if (keptEvents.length < seeded.eventsSeen.length)
		throw new Error('publishing did not keep the events seen seeded');
	return created.id;
}

/** Waits until the workflow ran `count` events in executions that are no longer running. */
async function executionsDone(rest: N8nRest, side: Side, count: number, what: string) {
	await pollUntil(async () => ((await eventsRun(rest, side)) >= count ? true : undefined), {
		timeoutMs: 15 * 60_000,
		intervalMs: 250,
		what,
	});
	await pollUntil(
		async () => {
			const newest = await rest.listExecutions(side.id);
			const ended = newest.every((execution) => !['new', 'running'].includes(execution.status));
			return ended ? true : undefined;
		},
		{ timeoutMs: 5 * 60_000, intervalMs: 250, what: `${what}: the last runs to end` },
	);
}

/** One round of one side: deliveries sent 16 at a time; per second until answered and until run. */
/** Bytes the process has written to storage so far (its database, WAL and journal included). */
function bytesWritten(pid: number): number {
	const io = readFileSync(`/proc/${pid}/io`, 'utf8');
	return Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
}

async function round(rest: N8nRest, pid: number, side: Side, leadIds: string[], count: number) {
	const before = await eventsRun(rest, side);
	const writtenBefore = bytesWritten(pid);
	const started = performance.now();
	const body = (index: number) =>
		JSON.stringify({
			id: leadIds[index % leadIds.length],
			topic: 'lead/update',
			timestamp: new Date(Date.now() - 1_000 + (index % 1_000)).toISOString(),
		});
	const refused = await postSigned(side.url, side.secret, count, IN_FLIGHT, body);
	const answeredS = (performance.now() - started) / 1000;
	await executionsDone(rest, side, before + count - refused.length, `${side.label}: its runs`);
	const ranS = (performance.now() - started) / 1000;
	return {
		answered: count / answeredS,
		ran: count / ranS,
		refused: refused.length,
		bytesPerDelivery: (bytesWritten(pid) - writtenBefore) / count,
	};
}

/** Probes n8n's readiness every second until stopped; counts the failed probes. */
export function healthProbe(baseUrl: string): {
	stop(): Promise<{ probes: number; failed: number }>;
} {
	let stopped = false;
	const counts = { probes: 0, failed: 0 };
	const loop = (async () => {
		while (!stopped) {
			counts.probes++;
			const answer = await httpRequest(`${baseUrl}/healthz/readiness`, {
				method: 'GET',
				timeoutMs: 1_000,
			}).catch(() => undefined);
			if (answer?.status !== 200) counts.failed++;
			await sleep(1_000);
		}
	})();
	return {
		stop: async () => {
			stopped = true;
			await loop;
			return counts;
		},
	};
}

export function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The bulk import: `count` leads created at once; the service sends each creation to ours. */
async function bulkImport(setting: BurstSetting, sim: RemoteSimulator, side: Side, count: number) {
	const { rest, pid } = setting;
	const executionsBefore = await rest.executionCount(side.id);
	const eventsBefore = await eventsRun(rest, side);
	const attemptsBefore = (await sim.deliveries()).length;
	const startRss = rssMiB(pid);
	let peakRss = startRss;
	const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(pid))), 100);
	const health = healthProbe(setting.baseUrl);
	const started = performance.now();
	const batch = randomUUID().slice(0, 8);
	for (let created = 0; created < count; created += 50)
		await Promise.all(
			Array.from({ length: Math.min(50, count - created) }, (_, index) =>
				sim.portalCreateLead({
					firstName: `Bulk${created + index}`,
					lastName: 'Import',
					email: `bulk${created + index}.${batch}@example.com`,
				}),
			),
		);
	await executionsDone(rest, side, eventsBefore + count, `the ${count} runs of the burst`);
	const allRanS = (performance.now() - started) / 1000;
	await sim.waitForDeliveries(5 * 60_000);
	clearInterval(sampler);
	const probes = await health.stop();
	const attempts = (await sim.deliveries())
		.slice(attemptsBefore)
		.filter((attempt) => attempt.url === side.url && !attempt.duplicate);
	const byDelivery = new Map<string, typeof attempts>();
	for (const attempt of attempts)
		byDelivery.set(attempt.deliveryId, [...(byDelivery.get(attempt.deliveryId) ?? []), attempt]);
	const deliveries = [...byDelivery.values()];
	const firstAttempt = deliveries.filter((tries) => tries[0].status === 200).length;
	const gaveUp = deliveries.filter((tries) => !tries.some((attempt) => attempt.acknowledged));
	return {
		deliveries: deliveries.length,
		attempts: attempts.length,
		firstAttemptShare: firstAttempt / Math.max(1, deliveries.length),
		gaveUpShare: gaveUp.length / Math.max(1, deliveries.length),
		allRanS,
		executions: (await rest.executionCount(side.id)) - executionsBefore,
		peakRssMiB: peakRss - startRss,
		probes,
	};
}

export async function burstCase(
	setting: BurstSetting,
	options: BurstOptions,
	rows: BurstRow[],
): Promise<void> {
	const { rest, version, log } = setting;
	// The service of this case: brief retries, 64 deliveries at once.
	const sim = await RemoteSimulator.start(11, undefined, [
		'--delivery-retry-delays',
		BRIEF_DELIVERY_RETRY_DELAYS_MS.join(','),
		'--delivery-concurrency',
		'64',
	]);
	const row = (figure: string, unit: string, values: number[]) =>
		rows.push({ version, figure, unit, values });
	try {
		const credential = await setting.credentialFor(sim);
		const leadsUrl = `${sim.info.url}/1.0/api/company/${sim.info.companyId}/leads`;
		const leadIds = await sim.seedLeads(200);
		for (const size of [...options.sizes].sort((a, b) => a - b)) {
			const missing = size - (await sim.leadCount()) + 200;
			// changed days ago: a publish's baseline keeps as run only the leads changed within its
			// settle of the newest (leads seeded in one moment would all be, 10,000 of them)
			const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3_600_000).toISOString();
			for (let seeded = 0; seeded < missing; seeded += 5_000)
				await sim.seedLeads(Math.min(5_000, missing - seeded), fourDaysAgo);
			const where = size === 0 ? '200 leads' : `${size.toLocaleString('en')} leads`;
			const sides: Side[] = [];
			const withHistory = options.histories.filter((events) => events > 0);
			for (const { fetchFullLead, leadsPerExecution, seen } of [
				...OURS,
				...withHistory.map((events) => ({ ...OURS[0], seen: events })),
			]) {
				const { workflow, webhookId } = triggerOnly('ours', credential, '', {
					events: ['lead/create', 'lead/update', 'lead/delete'],
					fetchFullLead,
					options: leadsPerExecution === undefined ? {} : { leadsPerExecution },
				});
				const id = seen
					? await publishWithHistory(setting, workflow, seen)
					: await publish(rest, workflow);
				const url = `${setting.baseUrl}/webhook/${webhookId}/webhook`;
				const secret = await pollUntil(() => sim.signingSecret(url, 'lead/update'), {
					timeoutMs: 300_000,
					intervalMs: 250,
					what: 'the trigger to subscribe',
				});
				const together = leadsPerExecution
					? `, ${leadsPerExecution} Leads per Execution Under Load`
					: '';
				const history = seen ? `, after ${seen.toLocaleString('en')} events` : '';
				const label = `ours, Fetch Full Lead ${fetchFullLead ? 'on' : 'off'}${together}${history}`;
				sides.push({
					label,
					id,
					url,
					secret,
					together: (leadsPerExecution ?? 1) > 1,
					counted: new Map(),
				});
			}
			for (const mode of ['lastNode', 'onReceived'] as const) {
				const { workflow, path } = webhookWorkflow(credential, leadsUrl, mode);
				const id = await publish(rest, workflow);
				const label = `Webhook node + HTTP Request, answering ${mode === 'lastNode' ? 'after the last node' : 'on receipt'}`;
				const url = `${setting.baseUrl}/webhook/${path}`;
				sides.push({ label, id, url, secret: 'none', together: false, counted: new Map() });
			}
			// the baselines (listings) of our triggers are done before anything is measured
			await sleep(5_000);
			const ran = new Map<string, number[]>();
			const answered = new Map<string, number[]>();
			const written = new Map<string, number[]>();
			for (const side of sides) await round(rest, setting.pid, side, leadIds, 20);
			for (let run = 0; run < options.runs; run++) {
				const shift = run % sides.length;
				for (const side of [...sides.slice(shift), ...sides.slice(0, shift)]) {
					const measure = () => round(rest, setting.pid, side, leadIds, options.deliveries);
					const figures =
						run === 0 && setting.profiled
							? await setting.profiled(`${where}: ${side.label}`, measure)
							: await measure();
					ran.set(side.label, [...(ran.get(side.label) ?? []), figures.ran]);
					answered.set(side.label, [...(answered.get(side.label) ?? []), figures.answered]);
					written.set(side.label, [...(written.get(side.label) ?? []), figures.bytesPerDelivery]);
					log(
						`${version} burst, ${where}, run ${run + 1}: ${side.label}: ${figures.ran.toFixed(1)} ran/s, ${figures.answered.toFixed(1)} answered/s, ${figures.refused} not answered 200, ${Math.round(figures.bytesPerDelivery)} bytes written per delivery`,
					);
				}
			}
			const webhookAfterLastNode = sides[OURS.length + withHistory.length];
			const baseline = ran.get(webhookAfterLastNode.label) ?? [];
			for (const side of sides) {
				const values = ran.get(side.label) ?? [];
				row(
					`${where}: ${side.label}: ${options.deliveries} deliveries 16 at a time, until every run ended`,
					'deliveries/s',
					values,
				);
				row(
					`${where}: ${side.label}: until the last answer`,
					'deliveries/s',
					answered.get(side.label) ?? [],
				);
				row(
					`${where}: ${side.label}: bytes n8n wrote to storage per delivery`,
					'bytes',
					written.get(side.label) ?? [],
				);
				if (side.id !== sides[0].id && side.label.includes(', after '))
					row(
						`${where}: ${side.label}: static data after the runs (each save writes it whole)`,
						'bytes',
						[await staticDataBytes(rest, side.id)],
					);
				if (side !== webhookAfterLastNode)
					row(
						`${where}: ${side.label} / Webhook node answering after the last node`,
						'ratio',
						values.map((value, index) => value / baseline[index]),
					);
			}
			// the bulk import, to each of our triggers that runs it differently, one at a time
			for (const side of sides) await rest.deactivateWorkflow({ id: side.id, active: true });
			// `--burst-leads 0`: the side-by-side rounds only
			const imported = options.burst > 0 ? sides.slice(0, OURS.length) : [];
			for (const ours of imported.filter((_, index) => OURS[index]?.fetchFullLead)) {
				await rest.activateWorkflow(await rest.getWorkflow(ours.id));
				await sleep(5_000);
				const burst = await bulkImport(setting, sim, ours, options.burst);
				log(`${version} burst, ${where}, ${ours.label}: ${JSON.stringify(burst)}`);
				const bytes = await staticDataBytes(rest, ours.id);
				const of = `${where}: ${ours.label}: bulk import`;
				row(`${of} of ${options.burst}: answered 200 at the first attempt`, 'share', [
					burst.firstAttemptShare,
				]);
				row(`${of}: deliveries the service gave up on`, 'share', [burst.gaveUpShare]);
				row(`${of}: delivery attempts per event`, 'attempts', [
					burst.attempts / Math.max(1, burst.deliveries),
				]);
				row(`${of}: seconds until every event ran`, 's', [burst.allRanS]);
				row(`${of}: executions`, 'executions', [burst.executions]);
				row(`${of}: n8n peak RSS above its start`, 'MiB', [burst.peakRssMiB]);
				row(`${of}: readiness probes failed`, 'probes', [burst.probes.failed]);
				row(`${of}: static data after it (each save writes it whole)`, 'bytes', [bytes]);
				await rest.deactivateWorkflow({ id: ours.id, active: true });
			}
		}
	} finally {
		await sim.close();
	}
}
