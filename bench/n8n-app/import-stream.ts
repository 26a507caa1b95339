/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The import case of `npm run bench:n8n` (`--only import`, issue 68): a bulk import at 6 leads a
 * second for `--import-minutes` (default 8) into a portal of 50,000 leads, the service delivering
 * each creation to our trigger (all three events, Fetch Full Lead on). What the trigger's early
 * checks cost and keep while it lasts: the checks (bursts of list requests at the service), the
 * deliveries' answer times during a check and outside one, n8n's readiness probed every second,
 * and the static data sampled every 5 s (its most, and at the end).
 */
import { performance } from 'node:perf_hooks';

import { pollUntil, sleep } from '../../test/e2e/lib/wait';
import { RemoteSimulator } from '../sim';
import type { BurstRow, BurstSetting } from './burst';
import { healthProbe, rssMiB } from './burst';
import { staticDataBytes } from './trigger-state';
import { triggerOnly } from './workflows';

const PORTAL = 50_000;
const PER_SECOND = 6;

const listRequests = async (sim: RemoteSimulator) => (await sim.stats()).byRoute['GET /leads'] ?? 0;

function percentile(sorted: number[], share: number): number {
	return sorted.length === 0
		? 0
		: sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

export async function importCase(
	setting: BurstSetting,
	minutes: number,
	rows: BurstRow[],
): Promise<void> {
	const { rest, version, log, pid } = setting;
	const row = (figure: string, unit: string, values: number[]) =>
		rows.push({ version, figure, unit, values });
	const sim = await RemoteSimulator.start(11);
	try {
		const credential = await setting.credentialFor(sim);
		const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3_600_000).toISOString();
		for (let seeded = 0; seeded < PORTAL; seeded += 5_000) await sim.seedLeads(5_000, fourDaysAgo);
		const { workflow, webhookId } = triggerOnly('ours', credential, '', {
			events: ['lead/create', 'lead/update', 'lead/delete'],
			fetchFullLead: true,
		});
		const created = await rest.createWorkflow(workflow);
		await rest.activateWorkflow(created);
		const url = `${setting.baseUrl}/webhook/${webhookId}/webhook`;
		await pollUntil(() => sim.signingSecret(url, 'lead/create'), {
			timeoutMs: 300_000,
			intervalMs: 250,
			what: 'the trigger to subscribe',
		});
		// the check after publishing lists the whole portal; the import starts once it ended
		await pollUntil(async () => ((await listRequests(sim)) >= PORTAL / 100 ? true : undefined), {
			timeoutMs: 300_000,
			intervalMs: 500,
			what: 'the first check to list the portal',
		});
		await sleep(5_000);

		const deliveriesBefore = (await sim.deliveries()).length;
		const executionsBefore = await rest.executionCount(created.id);
		const health = healthProbe(setting.baseUrl);
		const startRss = rssMiB(pid);
		let peakRss = startRss;
		// per second of the import: the list requests made in it (a check reads the list)
		const listedPerSecond: number[] = [];
		let listedBefore = await listRequests(sim);
		let mostStaticData = 0;
		// the seconds at which n8n's REST API did not answer a read of the workflow
		const restFailures: number[] = [];
		const sampling = (async () => {
			for (let second = 0; second < minutes * 60 + 60; second++) {
				await sleep(1_000);
				const listed = await listRequests(sim);
				listedPerSecond.push(listed - listedBefore);
				listedBefore = listed;
				peakRss = Math.max(peakRss, rssMiB(pid));
				if (second % 5 !== 4) continue;
				// n8n's REST API answers within its 60 s or not: both are figures
				const asked = performance.now();
				const bytes = await staticDataBytes(rest, created.id).catch(() => undefined);
				const tookS = Math.round((performance.now() - asked) / 1000);
				if (bytes === undefined) restFailures.push(second);
				else mostStaticData = Math.max(mostStaticData, bytes);
				if (second % 30 === 29 || bytes === undefined || tookS > 2)
					log(
						`import second ${second + 1}: ${listedPerSecond.slice(-30).reduce((a, b) => a + b, 0)} list requests in the last 30 s, static data ${bytes ?? 'not read'} B (read in ${tookS} s), runs ${(await rest.executionCount(created.id).catch(() => NaN)) - executionsBefore}`,
					);
			}
		})();
		const started = performance.now();
		const count = minutes * 60 * PER_SECOND;
		const creations: Array<Promise<string>> = [];
		for (let index = 0; index < count; index++) {
			const due = started + (index * 1000) / PER_SECOND;
			const wait = due - performance.now();
			if (wait > 0) await sleep(wait);
			creations.push(
				sim.portalCreateLead({
					firstName: `Import${index}`,
					lastName: 'Stream',
					email: `import${index}@example.com`,
				}),
			);
		}
		await Promise.all(creations);
		await pollUntil(
			async () =>
				(await rest.executionCount(created.id)) - executionsBefore >= count ? true : undefined,
			{ timeoutMs: 15 * 60_000, intervalMs: 1_000, what: `the ${count} runs of the import` },
		);
		await sampling;
		const probes = await health.stop();
		await sim.waitForDeliveries(5 * 60_000);
		const attempts = (await sim.deliveries())
			.slice(deliveriesBefore)
			.filter((attempt) => attempt.url === url && !attempt.duplicate);
		const startedAtMs = Date.now() - (performance.now() - started);
		// a second is a check's when the service was listing then (a check lasts seconds)
		const checking = (atMs: number) => {
			const second = Math.floor((atMs - startedAtMs) / 1000);
			return (listedPerSecond[second] ?? 0) > 0 || (listedPerSecond[second - 1] ?? 0) > 0;
		};
		const answerMs = (during: boolean) =>
			attempts
				.filter((attempt) => attempt.status !== undefined)
				.filter((attempt) => checking(Date.parse(attempt.sentAt)) === during)
				.map((attempt) => Date.parse(attempt.answeredAt) - Date.parse(attempt.sentAt))
				.sort((a, b) => a - b);
		const checks = listedPerSecond.filter(
			(listed, second) => listed > 0 && (listedPerSecond[second - 1] ?? 0) === 0,
		).length;
		const notAnswered200 = attempts.filter((attempt) => attempt.status !== 200).length;
		const endStaticData = await staticDataBytes(rest, created.id);
		const of = `import of ${count.toLocaleString('en')} leads at ${PER_SECOND}/s into ${PORTAL.toLocaleString('en')}`;
		log(
			`${version} ${of}: ${checks} checks, ${listedPerSecond.reduce((a, b) => a + b, 0)} list requests, ${notAnswered200} attempts not answered 200, readiness failed ${probes.failed} of ${probes.probes}, static data at most ${mostStaticData} B, at the end ${endStaticData} B`,
		);
		row(`${of}: checks during it (bursts of list requests)`, 'checks', [checks]);
		row(`${of}: list requests during it`, 'requests', [listedPerSecond.reduce((a, b) => a + b, 0)]);
		row(`${of}: runs`, 'executions', [(await rest.executionCount(created.id)) - executionsBefore]);
		row(`${of}: delivery attempts not answered 200`, 'attempts', [notAnswered200]);
		for (const [during, label] of [
			[true, 'while a check lists'],
			[false, 'otherwise'],
		] as const) {
			const sorted = answerMs(during);
			row(`${of}: deliveries answered ${label}`, 'deliveries', [sorted.length]);
			row(`${of}: answer ms ${label}, p50 / p95 / max`, 'ms', [
				percentile(sorted, 0.5),
				percentile(sorted, 0.95),
				sorted[sorted.length - 1] ?? 0,
			]);
		}
		row(`${of}: readiness probes failed`, 'probes', [probes.failed]);
		row(`${of}: reads of the workflow not answered within 60 s`, 'reads', [restFailures.length]);
		row(`${of}: n8n peak RSS above its start`, 'MiB', [peakRss - startRss]);
		row(`${of}: static data, the most sampled every 5 s`, 'bytes', [mostStaticData]);
		row(`${of}: static data at the end`, 'bytes', [endStaticData]);
		await rest.deactivateWorkflow({ id: created.id, active: true });
	} finally {
		await sim.close();
	}
}
