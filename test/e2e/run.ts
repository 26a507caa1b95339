/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * End-to-end tests of n8n-nodes-partner-leads in the real n8n application.
 *
 *   npm run test:e2e                         both versions
 *   N8N_E2E_VERSIONS=2.41.1 npm run test:e2e one version
 *
 * Builds the package, provides n8n (cached outside the repository, see scripts/e2e/provide-n8n.sh),
 * then per version starts the simulator and n8n and runs the scenarios. Prints a summary ending
 * with `N passed, N failed`; exits non-zero when anything failed. Every process started here is
 * stopped by pid (its process group) on every path, including the hard time bound.
 */
import { buildPackage } from './lib/build-package';
import { safetyNets } from './lib/safety-nets';
import { provideRuntimes } from './lib/provision';
import { log, Report } from './lib/report';
import { watchRunnerStalls } from './lib/runner-stalls';
import { credentialTest } from './scenarios/credential-test';
import { createAndGetLeads } from './scenarios/create-and-get';
import { listSearches } from './scenarios/list-searches';
import { nodeTypesListed } from './scenarios/node-types';
import { tokenRefresh } from './scenarios/token-refresh';
import { leadRunsTogether } from './scenarios/token-per-process';
import { leadTrigger } from './scenarios/trigger';
import { httpRequestNode } from './scenarios/http-request-node';
import { credentialMessages } from './scenarios/credential-messages';
import { secretsAndReplays } from './scenarios/secrets-and-replays';
import { cappedService } from './scenarios/capped-service';
import { restartWithActiveTrigger } from './scenarios/restart';
import { recoveryAfterDowntime } from './scenarios/recovery';
import { crashDuringBurstScenario } from './scenarios/crash';
import { pollingTrigger } from './scenarios/polling';
import { pollingWithDurableCursors } from './scenarios/polling-durable-cursors';
import { examplesRun } from './scenarios/examples';
import { agentTool } from './scenarios/agent-tool';
import { watchedFields } from './scenarios/watched-fields';
import { burstScenario, sharedExecutionsBurstScenario } from './scenarios/burst';
import { pollingAtScale, pollingAtScaleWithDurableCursors } from './scenarios/polling-at-scale';
import { publishedAgainDuringBurst } from './scenarios/published-again';
import { newKeySaved, subscriptionDeleted, unpublishedDuringImport } from './scenarios/day-200';
import { plannedChecks, runVersion } from './version-session';
import {
	plannedQueueChecks,
	QUEUE_SCENARIOS,
	QUEUE_SCENARIOS_BY_NAME_ONLY,
	runQueueMode,
} from './queue/session';
import { E2E_N8N_VERSIONS } from './versions';
import { filterByName } from './lib/name-filter';

// the restarts stay last: they restart n8n
const ALL_SCENARIOS = [
	nodeTypesListed,
	credentialTest,
	listSearches,
	createAndGetLeads,
	leadTrigger,
	publishedAgainDuringBurst,
	unpublishedDuringImport,
	tokenRefresh,
	leadRunsTogether,
	httpRequestNode,
	credentialMessages,
	secretsAndReplays,
	cappedService,
	examplesRun,
	recoveryAfterDowntime,
	pollingTrigger,
	pollingWithDurableCursors,
	agentTool,
	watchedFields,
	// late: by then the line's n8n of their own have ended (a restart there is load here)
	burstScenario,
	sharedExecutionsBurstScenario,
	restartWithActiveTrigger,
	crashDuringBurstScenario,
];
/**
 * Run only when N8N_E2E_SCENARIOS names them, each in an n8n of its own: they wait for the
 * trigger's subscription check (every 5 minutes, n8n's defaults kept), 6 to 12 minutes each, too
 * long for CI; their figures are in bench/README.md. The jest suites prove the same in n8n-core.
 */
const SCENARIOS_BY_NAME_ONLY = [
	newKeySaved,
	subscriptionDeleted,
	// about 25 minutes each: a portal of 50,000 leads read through (issue 65)
	pollingAtScale,
	pollingAtScaleWithDurableCursors,
];
/** N8N_E2E_SCENARIOS=word,word runs only the scenarios whose name contains one of the words (while iterating). */
const SCENARIOS = process.env.N8N_E2E_SCENARIOS
	? filterByName([...ALL_SCENARIOS, ...SCENARIOS_BY_NAME_ONLY], process.env.N8N_E2E_SCENARIOS)
	: ALL_SCENARIOS;
/**
 * A scenario marked `ownN8n` runs beside its line in an n8n of its own: the durable poll cursors
 * restart n8n with other settings and wait minutes for Poll Times (5 of the 2.x line's 23).
 */
const OWN_N8N = SCENARIOS.filter((scenario) => scenario.ownN8n);
const SHARED_N8N = SCENARIOS.filter((scenario) => !scenario.ownN8n);

/**
 * The n8n lines run side by side, each its own n8n, simulator and ports, its single-process
 * scenarios and then its queue mode: most of a scenario's time is waiting (Poll Times, the
 * service's retries, restarts), so together they take about as long as the longer line alone.
 * N8N_E2E_LINES_SIDE_BY_SIDE=0: one after the other (quieter timings, easier logs).
 */
const LINES_SIDE_BY_SIDE = process.env.N8N_E2E_LINES_SIDE_BY_SIDE !== '0';

/** N8N_E2E_QUEUE_VERSIONS: the versions also run in queue mode (default: both lines; empty: none). */
const QUEUE_VERSIONS = (process.env.N8N_E2E_QUEUE_VERSIONS ?? E2E_N8N_VERSIONS.join(','))
	.split(',')
	.map((version) => version.trim())
	.filter(Boolean);
const QUEUE_SELECTED = process.env.N8N_E2E_SCENARIOS
	? filterByName(
			[...QUEUE_SCENARIOS, ...QUEUE_SCENARIOS_BY_NAME_ONLY],
			process.env.N8N_E2E_SCENARIOS,
		)
	: QUEUE_SCENARIOS;

const minutes = (value: string | undefined, fallback: number) =>
	(Number(value) > 0 ? Number(value) : fallback) * 60_000;
/** Whole run, provisioning included (a cold provisioning of both versions takes ~10 minutes). */
const HARD_LIMIT_MS = minutes(process.env.N8N_E2E_TIMEOUT_MINUTES, 45);
const PROVISION_LIMIT_MS = minutes(process.env.N8N_E2E_PROVISION_TIMEOUT_MINUTES, 35);
const BUILD_LIMIT_MS = 5 * 60_000;

const report = new Report();
watchRunnerStalls(log);

const safety = safetyNets(report, 'e2e run', HARD_LIMIT_MS);
// typed here so that the compiler knows a call ends the run
const finish: (code: number) => never = safety.finish;
const hardBound = safety.hardBound;

async function main(): Promise<void> {
	const versions = (process.env.N8N_E2E_VERSIONS ?? E2E_N8N_VERSIONS.join(','))
		.split(',')
		.map((version) => version.trim())
		.filter(Boolean);
	// one line's checks: its shared n8n's scenarios, then those in an n8n of their own
	const lineChecks = (version: string) => [
		...plannedChecks(version, SHARED_N8N),
		...plannedChecks(version, OWN_N8N, true),
	];
	for (const version of versions) report.plan(lineChecks(version));
	const queueVersions =
		QUEUE_SELECTED.length > 0 ? QUEUE_VERSIONS.filter((version) => versions.includes(version)) : [];
	for (const version of queueVersions) report.plan(plannedQueueChecks(version, QUEUE_SELECTED));
	const notRun = (reason: string) => {
		for (const version of versions)
			for (const name of lineChecks(version)) report.fail(name, `not run: ${reason}`);
	};

	const built = await report.check(
		'package builds and lists its nodes and credential in dist/',
		() => buildPackage(BUILD_LIMIT_MS),
	);
	if (!built) {
		notRun('the package did not build');
		clearTimeout(hardBound);
		finish(1);
	}

	let runtimes;
	try {
		runtimes = await provideRuntimes(versions, PROVISION_LIMIT_MS);
	} catch (error) {
		report.fail(`n8n ${versions.join(', ')} provided`, error);
		notRun('n8n could not be provided');
		clearTimeout(hardBound);
		finish(1);
	}

	const runLine = async (version: string) => {
		const own = runVersion(runtimes.get(version)!, OWN_N8N, report, true);
		const ownEnded = own.then(
			() => undefined,
			() => undefined,
		);
		await runVersion(runtimes.get(version)!, SHARED_N8N, report, false, ownEnded);
		if (queueVersions.includes(version))
			await runQueueMode(runtimes.get(version)!, QUEUE_SELECTED, report);
		await own;
	};
	if (LINES_SIDE_BY_SIDE) await Promise.all(versions.map(runLine));
	else for (const version of versions) await runLine(version);
	clearTimeout(hardBound);
	finish(report.failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	report.fail('e2e run', error);
	finish(1);
});
