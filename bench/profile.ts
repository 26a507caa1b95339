/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Profiling aid (not part of `npm run bench`): runs one measurement of one case after a
 * warm-up and writes a CPU profile of the measured run alone (start-up and warm-up
 * excluded), to see where our side's time goes:
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/profile.ts create 2000 1 ours
 *   npx ts-node --transpile-only --prefer-ts-exts bench/profile.ts trigger 3000 off
 *   npx ts-node --transpile-only --prefer-ts-exts bench/profile.ts storm 1000 1
 *
 * create <count> <parallel> <variant: ours|ours-expr|ours-genauth|floor|bare|bare-noka>
 * trigger <count> <on|off|floor>  (Fetch Full Lead on/off, or the n8n webhook floor trigger)
 * storm <count> <parallel>
 * The profile goes to bench-results/<case>.cpuprofile (open it in Chrome DevTools or VS Code).
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

import type { BenchConfig, BenchContext } from './cases/context';
import type { Variant } from './cases/create';
import { createRun } from './cases/create';
import { stormRun } from './cases/storm';
import { LoadGenerator, triggerRun } from './cases/trigger';
import { leadItems } from './n8n';
import { ROOT, runMain } from './processes';
import { RemoteSimulator } from './sim';

async function withCpuProfile<T>(file: string, work: () => Promise<T>): Promise<T> {
	const session = new Session();
	session.connect();
	const post = (method: string, params?: object) =>
		new Promise<unknown>((resolve, reject) =>
			session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
		);
	await post('Profiler.enable');
	await post('Profiler.setSamplingInterval', { interval: 500 });
	await post('Profiler.start');
	try {
		return await work();
	} finally {
		const { profile } = (await post('Profiler.stop')) as { profile: unknown };
		session.disconnect();
		mkdirSync(path.dirname(file), { recursive: true });
		writeFileSync(file, JSON.stringify(profile));
		process.stderr.write(`profile: ${path.relative(ROOT, file)}\n`);
	}
}

async function main(): Promise<void> {
	const [target = 'create', countArg, option, variantArg] = process.argv.slice(2);
	const count = Number(countArg ?? 2000);
	const sim = await RemoteSimulator.start();
	const config: BenchConfig = {
		createCount: count,
		runs: 1,
		parallel: 8,
		getManySizes: [],
		deliveries: count,
		deliveryConcurrency: 8,
		stormCount: count,
		stormRate429: 0.3,
		diagnostics: false,
	};
	const ctx: BenchContext = { sim, config, log: (message) => process.stderr.write(`${message}\n`) };
	const file = path.join(ROOT, 'bench-results', `${target}.cpuprofile`);
	try {
		if (target === 'create') {
			const parallel = Number(option ?? 1);
			const variant = (variantArg ?? 'ours') as Variant;
			await createRun(sim, leadItems(300, 'warm'), variant, parallel);
			const sample = await withCpuProfile(file, () =>
				createRun(sim, leadItems(count, 'profile'), variant, parallel),
			);
			process.stdout.write(
				`create x${count}, ${parallel} in flight, ${variant}: ${Math.round(sample.ms)} ms\n`,
			);
		} else if (target === 'trigger') {
			const fetch = option === 'on';
			const side = option === 'floor' ? 'floor' : 'trigger';
			const load = LoadGenerator.start();
			try {
				await triggerRun(ctx, load, 300, fetch, side);
				const run = await withCpuProfile(file, () => triggerRun(ctx, load, count, fetch, side));
				process.stdout.write(
					`trigger x${count}, ${option ?? 'off'}: ${Math.round(run.settledMs)} ms\n`,
				);
			} finally {
				await load.close();
			}
		} else if (target === 'storm') {
			const parallel = Number(option ?? 1);
			await stormRun(ctx, 200, parallel, true);
			const run = await withCpuProfile(file, () => stormRun(ctx, count, parallel, true));
			process.stdout.write(
				`storm x${count}, ${parallel} in flight: ${Math.round(run.ms)} ms, ${run.answered429} x 429, ${run.failures} failed\n`,
			);
		} else {
			throw new Error(`unknown target "${target}" (create, trigger, storm)`);
		}
	} finally {
		await sim.close();
	}
}

runMain(main);
