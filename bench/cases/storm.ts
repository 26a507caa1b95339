/**
 * Case 5: a 429 storm. N creates through the node while the service answers a share of
 * them 429 with `Retry-After: 0`, against the same run without faults. Continue On Fail is
 * on, so a create the node gave up on shows as an error item instead of ending the run.
 */
import type { RequestStats } from '../../test/simulator/types';
import { median, ratio, timed } from '../measure';
import { createParameters, errorItems, freshHarness, leadItems, nodeExecutionMs } from '../n8n';
import type { CaseResult, Row } from '../report';
import { withTimeout } from '../processes';
import { routeCount, statusCount } from '../sim';
import type { BenchContext } from './context';

interface StormRun {
	storm: boolean;
	parallel: number;
	ms: number;
	/** items without a created lead: error items, missing items, or the whole run failing */
	failures: number;
	/** leads the service created (a retried create must never create twice) */
	created: number;
	answered429: number;
	requests: number;
}

export async function stormRun(
	ctx: BenchContext,
	count: number,
	parallel: number,
	storm: boolean,
): Promise<StormRun> {
	const { sim, config } = ctx;
	await sim.reset();
	if (storm)
		await sim.setFaults('POST /leads', { rate429: config.stormRate429, retryAfterSeconds: 0 });
	const harness = freshHarness(sim);
	const items = leadItems(count, storm ? 'storm' : 'calm');
	const { ms, value: run } = await timed(() =>
		withTimeout(
			harness.runNode({ parameters: createParameters(sim, parallel), items, continueOnFail: true }),
			5 * 60_000,
			`the 429 storm run (${count} creates)`,
		),
	);
	const stats: RequestStats = await sim.stats();
	const leads = run.items.filter((item) => typeof item.json.id === 'string').length;
	const failures = run.error ? count : errorItems(run) + Math.max(0, count - run.items.length);
	return {
		storm,
		parallel,
		ms: nodeExecutionMs(run) ?? ms,
		failures: Math.max(failures, count - leads),
		created: statusCount(stats, 'POST /leads', 201),
		answered429: statusCount(stats, 'POST /leads', 429),
		requests: routeCount(stats, 'POST /leads'),
	};
}

export async function stormCase(ctx: BenchContext): Promise<Omit<CaseResult, 'seconds'>> {
	const { config } = ctx;
	const count = config.stormCount;
	const runs: StormRun[] = [];
	try {
		for (const parallel of [1, config.parallel]) {
			await stormRun(ctx, Math.min(200, count), parallel, true);
			for (let run = 0; run < config.runs; run++) {
				runs.push(await stormRun(ctx, count, parallel, true));
				runs.push(await stormRun(ctx, count, parallel, false));
				const [storm, calm] = runs.slice(-2);
				ctx.log(
					`  storm x${count}, ${parallel} in flight, run ${run + 1}/${config.runs}: storm ${Math.round(storm.ms)} ms (${storm.answered429} x 429, ${storm.failures} failed), calm ${Math.round(calm.ms)} ms`,
				);
			}
		}
	} finally {
		await ctx.sim.reset();
	}

	const rows: Row[] = [];
	for (const parallel of [1, config.parallel]) {
		const of = (storm: boolean) =>
			runs.filter((run) => run.parallel === parallel && run.storm === storm);
		const stormy = of(true);
		const calm = of(false);
		const failures = Math.max(
			...stormy.map((run) => run.failures),
			...calm.map((run) => run.failures),
		);
		const duplicates = Math.max(...[...stormy, ...calm].map((run) => run.created - count));
		const stormMs = median(stormy.map((run) => run.ms));
		const calmMs = median(calm.map((run) => run.ms));
		const share429 = median(stormy.map((run) => run.answered429 / Math.max(1, run.requests)));
		const label = parallel === 1 ? 'sequential' : `parallel ${parallel}`;
		rows.push(
			{
				case: '5 429 storm',
				metric: `${label}: failed creates (of ${count} per run, ${config.runs} runs)`,
				ours: failures,
				target: '= 0',
				met: failures === 0 && duplicates <= 0,
				note:
					parallel === 1
						? `POST /leads answered 429 (Retry-After: 0) for ${Math.round(config.stormRate429 * 100)}% of requests; failures = error items or missing leads (Continue On Fail on); also checked: no create applied twice (max extra leads created: ${Math.max(0, duplicates)})`
						: undefined,
			},
			{
				case: '5 429 storm',
				metric: `${label}: time storm vs no 429s (s)`,
				ours: stormMs / 1000,
				baseline: calmMs / 1000,
				ratio: ratio(stormMs, calmMs),
				note: `share of requests answered 429: ${(share429 * 100).toFixed(0)}%; ideal ratio with immediate retries ~ 1/(1-${config.stormRate429}) = ${(1 / (1 - config.stormRate429)).toFixed(2)} x requests`,
			},
		);
	}
	return { id: '5', title: '429 storm', rows, details: { runs } };
}
