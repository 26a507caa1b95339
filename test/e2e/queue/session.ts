/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Queue mode for one n8n version: the cluster (PostgreSQL, Redis, main, 2 workers, 2 webhook
 * processes behind nginx), the simulator delivering to the load balancer, an owner and a
 * credential on the main process, then the queue scenarios. Everything is stopped before this
 * returns; the figures are printed for the closing note and the README.
 */
import assert from 'node:assert/strict';

import type { Simulator } from '../../simulator/types';
import { REPO_ROOT } from '../lib/build-package';
import { installPackageInto } from '../lib/extension';
import { N8nRest } from '../lib/n8n-rest';
import type { N8nRuntime } from '../lib/provision';
import { startQueueCluster, type QueueCluster } from '../lib/queue-mode/cluster';
import { TokenRequestsByProcess } from '../lib/queue-mode/token-requests';
import { describe, log, type Report } from '../lib/report';
import { CREDENTIAL_TYPE, credentialData, startService } from '../lib/service';
import { withTimeout } from '../lib/wait';
import type { QueueContext, QueueScenario } from './context';
import { firstExecutionsOnWorkers } from './first-executions';
import { leadOperationsOnWorkers } from './lead-operations';
import { restartInQueueMode, workerKilledMidRun } from './restart-and-crash';
import { watchedFieldsInQueueMode } from './watched-fields';
import { triggerInQueueMode } from './trigger';
import { recoveryInQueueMode } from './recovery';
import { pollingInQueueMode } from './polling';
import { leaderKilledDuringBurst, webhookProcessKilledDuringBurst } from './crash';
import { burstInQueueMode } from './burst';

export const QUEUE_SCENARIOS: QueueScenario[] = [
	leadOperationsOnWorkers,
	triggerInQueueMode,
	restartInQueueMode,
	recoveryInQueueMode,
	pollingInQueueMode,
	workerKilledMidRun,
	webhookProcessKilledDuringBurst,
	leaderKilledDuringBurst,
	watchedFieldsInQueueMode,
];

/**
 * Run only when N8N_E2E_SCENARIOS names them, not in CI: beside the other line's cluster (as CI
 * runs them, 14 processes on 2 cores) the burst in queue mode failed on 2.41.1, its webhook
 * processes answering "503 Database is not ready!" (issue 40, open); alone it passes. Last: its
 * 300 leads stay in the portal, and the polling scenario counts list pages.
 */
export const QUEUE_SCENARIOS_BY_NAME_ONLY: QueueScenario[] = [burstInQueueMode];

const label = (version: string) => `[n8n ${version} queue mode]`;

export function plannedQueueChecks(version: string, scenarios: QueueScenario[]): string[] {
	return [
		`${label(version)} cluster: PostgreSQL, Redis, main, 2 workers, 2 webhook processes behind nginx`,
		...scenarios.map((scenario) => `${label(version)} ${scenario.name}`),
	];
}

export async function runQueueMode(
	runtime: N8nRuntime,
	scenarios: QueueScenario[],
	report: Report,
): Promise<void> {
	const [clusterCheck] = plannedQueueChecks(runtime.version, []);
	const failedBefore = report.failed;
	let sim: Simulator | undefined;
	let cluster: QueueCluster | undefined;
	const figures = new Map<string, string | number>();
	const tokenRequests = new TokenRequestsByProcess();
	try {
		let context: QueueContext | undefined;
		await report.check(clusterCheck!, async () => {
			sim = await startService({ onTokenRequest: tokenRequests.record });
			tokenRequests.serverPort = Number(new URL(sim.origin).port);
			cluster = await startQueueCluster({
				runtime,
				prepareUserFolder: (folder) => installPackageInto(folder, REPO_ROOT),
			});
			tokenRequests.watch([cluster.main, ...cluster.workers, ...cluster.webhooks]);
			const rest = new N8nRest(cluster.main.baseUrl);
			const owner = await rest.setUpOwnerAndLogIn('E2E');
			assert.ok(
				(await rest.nodeTypeNames()).some((name) => name.startsWith('n8n-nodes-partner-leads.')),
				'the main process did not load the package',
			);
			const name = 'e2e partner leads (queue mode)';
			const stored = await rest.createCredential(name, CREDENTIAL_TYPE, credentialData(sim));
			await firstExecutionsOnWorkers(cluster, rest, figures);
			context = {
				cluster,
				rest,
				webhooks: new N8nRest(cluster.balancerUrl),
				sim,
				credential: { id: stored.id, name },
				owner,
				tokenRequests,
				figures,
			};
		});
		for (const scenario of scenarios) {
			if (!context) {
				report.fail(
					`${label(runtime.version)} ${scenario.name}`,
					'not run: the cluster did not start',
				);
				continue;
			}
			await report.check(`${label(runtime.version)} ${scenario.name}`, () =>
				scenario.run(context!),
			);
		}
	} finally {
		if (figures.size > 0)
			log(
				`${label(runtime.version)} figures:\n  ${[...figures].map(([name, value]) => `${name}: ${value}`).join('\n  ')}`,
			);
		const keepFiles = report.failed > failedBefore || process.env.N8N_E2E_KEEP_FILES === '1';
		if (cluster)
			await withTimeout(
				cluster.stop({ keepFiles }),
				60_000,
				'stopping the queue-mode cluster',
			).catch((error: unknown) => log(describe(error)));
		if (keepFiles && cluster)
			log(`${label(runtime.version)} kept the processes' folders, e.g. ${cluster.main.logFile}`);
		if (sim)
			await withTimeout(sim.close(), 10_000, 'closing the simulator').catch((error: unknown) =>
				log(describe(error)),
			);
	}
}
