/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npm run bench`: the performance cases of issue 8 against the simulator on loopback, our
 * side through n8n-core. Prints one table (stdout) and writes it as JSON under
 * bench-results/. Exits non-zero only on errors, never on a missed target.
 *
 *   npm run bench                     every case
 *   npm run bench -- --only 1,3       some cases (2 needs 1; 6 is the polling trigger's poll)
 *   npm run bench -- --quick          smaller sizes, one run each: a smoke test of the bench itself
 *   npm run bench -- --no-diagnostics without the rows that explain where time goes
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { createCase } from './cases/create';
import type { BenchConfig, BenchContext } from './cases/context';
import { getManyCase } from './cases/get-many';
import { pollingCase } from './polling-requests';
import { requestCountsCase } from './cases/requests';
import { stormCase } from './cases/storm';
import { triggerCase } from './cases/trigger';
import { cpuSnapshot, machineInfo, nowMs, otherCores } from './measure';
import { killChildrenNow, livePids, ROOT } from './processes';
import type { BenchReport, CaseResult } from './report';
import { formatTable } from './report';
import { RemoteSimulator } from './sim';

/** Hard bound on the whole run: children are killed and the process exits 1. */
const HARD_LIMIT_MS = 20 * 60_000;

const FULL: BenchConfig = {
	createCount: 2000,
	runs: 3,
	parallel: 8,
	getManySizes: [10_000, 50_000],
	deliveries: 3000,
	deliveryConcurrency: 8,
	stormCount: 1000,
	stormRate429: 0.3,
	diagnostics: true,
};

const QUICK: BenchConfig = {
	createCount: 300,
	runs: 1,
	parallel: 8,
	getManySizes: [1_000, 5_000],
	deliveries: 300,
	deliveryConcurrency: 8,
	stormCount: 200,
	stormRate429: 0.3,
	diagnostics: true,
};

interface Args {
	quick: boolean;
	only?: Set<string>;
	diagnostics: boolean;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { quick: false, diagnostics: true };
	for (let i = 0; i < argv.length; i++) {
		const [name, inline] = argv[i].split(/=(.*)/s, 2);
		if (name === '--quick') args.quick = true;
		else if (name === '--no-diagnostics') args.diagnostics = false;
		else if (name === '--only') {
			const value = inline ?? argv[++i];
			if (!value) throw new Error('--only needs a list of cases, e.g. --only 1,3');
			args.only = new Set(value.split(',').map((part) => part.trim()));
		} else
			throw new Error(`Unknown argument "${argv[i]}" (use --quick, --only 1,3, --no-diagnostics)`);
	}
	return args;
}

function log(message: string): void {
	process.stderr.write(`${message}\n`);
}

async function runCase(
	id: string,
	title: string,
	work: () => Promise<Omit<CaseResult, 'seconds'>>,
): Promise<CaseResult> {
	log(`case ${id}: ${title}`);
	const start = nowMs();
	const cpuBefore = cpuSnapshot(livePids());
	try {
		const result = await work();
		const seconds = (nowMs() - start) / 1000;
		const others = otherCores(cpuBefore, cpuSnapshot(livePids()), machineInfo().cores);
		log(
			`case ${id}: done in ${seconds.toFixed(1)} s${others === undefined ? '' : `; other processes kept ${others.toFixed(2)} cores busy`}`,
		);
		return { ...result, seconds, otherCores: others };
	} catch (error) {
		const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
		log(`case ${id}: ERROR ${message}`);
		return { id, title, rows: [], details: {}, seconds: (nowMs() - start) / 1000, error: message };
	}
}

async function main(): Promise<number> {
	const args = parseArgs(process.argv.slice(2));
	const config: BenchConfig = { ...(args.quick ? QUICK : FULL), diagnostics: args.diagnostics };
	const wanted = (id: string) => !args.only || args.only.has(id);
	const machine = machineInfo();
	const started = nowMs();
	log(
		`bench: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}; ${args.quick ? 'quick' : 'full'} configuration`,
	);

	const sim = await RemoteSimulator.start();
	const ctx: BenchContext = { sim, config, log };
	const cases: CaseResult[] = [];
	try {
		if (wanted('1') || wanted('2')) {
			let measurements: Awaited<ReturnType<typeof createCase>>['measurements'] | undefined;
			const created = await runCase('1', `create ${config.createCount} leads`, async () => {
				const outcome = await createCase(ctx);
				measurements = outcome.measurements;
				return outcome.result;
			});
			if (wanted('1')) cases.push(created);
			if (wanted('2')) {
				cases.push(
					await runCase('2', 'token and schema requests per run', async () => {
						if (!measurements) throw new Error('case 1 failed, so there is nothing to count');
						return requestCountsCase(measurements);
					}),
				);
			}
		}
		if (wanted('3'))
			cases.push(await runCase('3', 'Get Many / Return All', () => getManyCase(ctx)));
		if (wanted('4')) cases.push(await runCase('4', 'trigger deliveries', () => triggerCase(ctx)));
		if (wanted('5')) cases.push(await runCase('5', '429 storm', () => stormCase(ctx)));
		if (wanted('6'))
			cases.push(
				await runCase('6', 'polling trigger: sliced sweeps', () => pollingCase(args.quick)),
			);
	} finally {
		await sim.close();
	}

	const report: BenchReport = {
		machine,
		config: { ...config, quick: args.quick, only: args.only ? [...args.only] : 'all' },
		totalSeconds: (nowMs() - started) / 1000,
		cases,
	};
	process.stdout.write(`${formatTable(report)}\n`);
	const folder = path.join(ROOT, 'bench-results');
	mkdirSync(folder, { recursive: true });
	const file = path.join(folder, `bench-${machine.date.replace(/[:.]/g, '-')}.json`);
	writeFileSync(file, `${JSON.stringify(report, null, '\t')}\n`);
	process.stdout.write(`\nJSON: ${path.relative(ROOT, file)}\n`);
	return cases.some((result) => result.error) ? 1 : 0;
}

const hardLimit = setTimeout(() => {
	log(`bench: still running after ${HARD_LIMIT_MS / 60_000} min; stopping`);
	killChildrenNow();
	process.exit(1);
}, HARD_LIMIT_MS);
hardLimit.unref();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		killChildrenNow();
		process.exit(1);
	});
}
process.once('exit', () => killChildrenNow());

main()
	.then((code) => {
		process.exitCode = code;
	})
	.catch((error: unknown) => {
		log(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
		process.exitCode = 1;
	})
	.finally(() => {
		// Keep-alive sockets or n8n-core timers must not keep the process alive.
		clearTimeout(hardLimit);
		setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
	});
