/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- a script: runs in Node next to n8n, never inside it, never shipped */
/**
 * Hard kills of the real n8n during a burst of lead events, counted.
 *
 *   npm run crash                              5 kills on 2.41.1 and on 1.123.81
 *   npm run crash -- --kills 10 --version 2.41.1
 *   npm run crash -- --kills 6 --queue          # also queue mode: a webhook process and the main killed in turn
 *   npm run crash -- --only polling             # the Polling Trigger's kills only (--only burst: the trigger's)
 *
 * For each kill: a fresh trigger workflow (lead/create and lead/update, Fetch Full Lead) on a
 * portal of 60 leads, 40 creates 120 ms apart with 5 updates among them, SIGKILL after the k-th
 * create (a different k each time), the rest of the burst while n8n is down past the service's
 * retries, then n8n started again (test/e2e/crash/burst.ts). Prints per kill the lost, doubled and
 * re-run counts and the totals; exits non-zero when an event was lost, ran twice unmarked, or a
 * lead that did not change ran.
 *
 * Then the Polling Trigger (test/e2e/crash/polling.ts): n8n killed while a look reads a slice of a
 * portal larger than a look, and while it fetches full leads, with n8n's default and, on 2.x,
 * with durable poll cursors: each change once, none lost.
 */
import { buildPackage } from '../../test/e2e/lib/build-package';
import {
	answerWindowMs,
	crashDuringBurst,
	describeOutcome,
	hardKillOf,
	ISSUE_BURST,
	killPoints,
	type BurstOutcome,
} from '../../test/e2e/crash/burst';
import {
	crashesDuringPolling,
	describePollingOutcome,
	type PollingCrashOutcome,
} from '../../test/e2e/crash/polling';
import { killAllNow } from '../../test/e2e/lib/processes';
import { DURABLE_POLL_CURSORS } from '../../test/e2e/scenarios/polling-durable-cursors';
import { provideRuntimes, type N8nRuntime } from '../../test/e2e/lib/provision';
import { killedQueueProcess } from '../../test/e2e/queue/crash';
import { runQueueMode } from '../../test/e2e/queue/session';
import { Report } from '../../test/e2e/lib/report';
import { runVersion } from '../../test/e2e/version-session';
import { E2E_N8N_VERSIONS } from '../../test/e2e/versions';

function describeWindow(window: number[]): string {
	if (window.length === 0) return 'no delivery answered in the window burst';
	const at = (share: number) =>
		window[Math.min(window.length - 1, Math.floor(share * window.length))];
	return `from an execution's end to the service's 200 (a kill there re-runs a finished execution, marked), ${window.length} deliveries: min ${window[0]} ms, median ${at(0.5)} ms, max ${window[window.length - 1]} ms`;
}

function option(name: string): string | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index === -1 ? undefined : process.argv[index + 1];
}

type Outcomes = Map<string, BurstOutcome[]>;
type PollingOutcomes = Map<string, PollingCrashOutcome[]>;

/** One n8n process per version: the answer window, then the kills. */
async function singleProcess(
	runtime: N8nRuntime,
	kills: number,
	report: Report,
	outcomes: Outcomes,
	windows: Map<string, number[]>,
): Promise<void> {
	const label = `n8n ${runtime.version}`;
	const results: BurstOutcome[] = [];
	outcomes.set(label, results);
	await runVersion(
		runtime,
		[
			{
				name: `${kills} hard kill(s) during a burst`,
				async run(context) {
					const window = await answerWindowMs(context, 30);
					windows.set(label, window);
					console.log(`  ${label}: ${describeWindow(window)}`);
					for (const point of killPoints(kills, ISSUE_BURST.creates)) {
						const plan = { ...ISSUE_BURST, deletes: 2, killAfterCreate: point };
						const outcome = await crashDuringBurst(context, plan, hardKillOf(context.n8n));
						results.push(outcome);
						console.log(`  ${label}: ${describeOutcome(outcome)}`);
					}
				},
			},
		],
		report,
	);
}

/**
 * The Polling Trigger: kills while a look reads a slice and while it fetches full leads, with
 * n8n's default and (2.x) with durable poll cursors, each in a workflow of its own.
 */
async function pollingKills(runtime: N8nRuntime, report: Report, results: PollingOutcomes) {
	const modes = runtime.version.startsWith('1.') ? [false] : [false, true];
	await runVersion(
		runtime,
		[
			{
				name: "hard kills during the Polling Trigger's looks",
				async run(context) {
					for (const durable of modes) {
						if (durable) await context.n8n.restart({ environment: DURABLE_POLL_CURSORS });
						const label = `n8n ${runtime.version} Polling Trigger${durable ? ', durable poll cursors' : ''}`;
						const outcomes = await crashesDuringPolling(context, ['reading', 'fetching']);
						results.set(label, outcomes);
						for (const outcome of outcomes)
							console.log(`  ${label}: ${describePollingOutcome(outcome)}`);
					}
				},
			},
		],
		report,
	);
}

function printPollingTotals(results: PollingOutcomes): number {
	let bad = 0;
	for (const [label, outcomes] of results) {
		const sum = (pick: (outcome: PollingCrashOutcome) => string[]) =>
			outcomes.reduce((total, outcome) => total + pick(outcome).length, 0);
		const wrong = sum((o) => o.lost) + sum((o) => o.doubled) + sum((o) => o.unexpected);
		bad += wrong + outcomes.filter((outcome) => outcome.settledAfterMs === undefined).length;
		console.log(
			`  ${label}: ${outcomes.length} kills, ${sum((o) => o.expected)} changes; lost ${sum((o) => o.lost)}, doubled ${sum((o) => o.doubled)}, other leads run ${sum((o) => o.unexpected)}`,
		);
	}
	return bad;
}

/** Queue mode: a webhook process and the main process (leader) killed in turn. */
async function queueMode(
	runtime: N8nRuntime,
	kills: number,
	report: Report,
	outcomes: Outcomes,
): Promise<void> {
	const victims = ['webhook process', 'main process'] as const;
	for (const victim of victims) outcomes.set(`n8n ${runtime.version} queue, ${victim} killed`, []);
	await runQueueMode(
		runtime,
		[
			{
				name: `${kills} hard kill(s) during bursts, a webhook process and the main in turn`,
				async run(context) {
					for (const [index, point] of killPoints(kills, ISSUE_BURST.creates).entries()) {
						const victim = victims[index % 2]!;
						const interrupt =
							victim === 'main process'
								? killedQueueProcess(context.cluster.main, async () => {
										await context.rest.login(context.owner.email, context.owner.password);
									})
								: killedQueueProcess(context.cluster.webhooks[0]!);
						const plan = { ...ISSUE_BURST, deletes: 2, killAfterCreate: point };
						const outcome = await crashDuringBurst(context, plan, interrupt);
						outcomes.get(`n8n ${runtime.version} queue, ${victim} killed`)!.push(outcome);
						console.log(
							`  n8n ${runtime.version} queue, ${victim} killed: ${describeOutcome(outcome)}`,
						);
					}
				},
			},
		],
		report,
	);
}

function printTotals(outcomes: Outcomes, windows: Map<string, number[]>): number {
	let bad = 0;
	console.log('\nTotals');
	for (const [label, results] of outcomes) {
		const sum = (pick: (outcome: BurstOutcome) => number) =>
			results.reduce((total, outcome) => total + pick(outcome), 0);
		const lost = sum((outcome) => outcome.lost.length);
		const doubled = sum((outcome) => outcome.doubled.length);
		const unexpected = sum((outcome) => outcome.unexpected.length);
		bad += lost + doubled + unexpected;
		console.log(
			`  ${label}: ${results.length} kills, ${sum((outcome) => outcome.expected)} events, ` +
				`${sum((outcome) => outcome.answeredBeforeKill)} answered before a kill; lost ${lost}, ` +
				`doubled ${doubled}, re-runs marked ${sum((outcome) => outcome.reruns)} (of finished runs ${sum((outcome) => outcome.rerunsOfFinished)}), ` +
				`recovered ${sum((outcome) => outcome.recovered)}, other leads run ${unexpected}`,
		);
		const window = windows.get(label);
		if (window) console.log(`    ${describeWindow(window)}`);
		for (const outcome of results) {
			for (const event of outcome.lost) console.log(`    lost: ${event}`);
			for (const event of outcome.doubled) console.log(`    doubled: ${event}`);
		}
	}
	return bad;
}

async function main(): Promise<number> {
	const kills = Math.max(1, Number(option('kills') ?? 5));
	const versionOption = option('version');
	const versions = versionOption ? versionOption.split(',') : [...E2E_N8N_VERSIONS];
	await buildPackage(5 * 60_000);
	const runtimes = await provideRuntimes(versions, 35 * 60_000);
	const report = new Report();
	const outcomes: Outcomes = new Map();
	const windows = new Map<string, number[]>();
	const polling: PollingOutcomes = new Map();
	const only = option('only');
	for (const version of versions) {
		const runtime = runtimes.get(version)!;
		if (only !== 'polling') await singleProcess(runtime, kills, report, outcomes, windows);
		if (only !== 'burst') await pollingKills(runtime, report, polling);
	}
	if (process.argv.includes('--queue'))
		for (const version of versions)
			await queueMode(runtimes.get(version)!, kills, report, outcomes);
	const bad = report.failed + printTotals(outcomes, windows) + printPollingTotals(polling);
	console.log(report.summary());
	return bad > 0 ? 1 : 0;
}

process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.on(signal, () => {
		killAllNow();
		process.exit(130);
	});
}
main()
	.then((code) => {
		killAllNow();
		process.exit(code);
	})
	.catch((error: unknown) => {
		console.error(error);
		killAllNow();
		process.exit(1);
	});
