/**
 * Case 3: Lead > Get Many with Return All over N seeded leads (each size, each side in its
 * own --expose-gc process for clean memory figures): wall time, pages fetched, peak memory
 * above the baseline, and how it scales from the small to the large list.
 */
import { median, ratio } from '../measure';
import { exited, spawnTs, stderrOf, stopChild, withTimeout } from '../processes';
import type { CaseResult, Row } from '../report';
import type { GetManyChildConfig, GetManySample } from './get-many-child';
import type { BenchContext } from './context';

const CHILD = 'bench/cases/get-many-child.ts';

async function runChild(config: GetManyChildConfig): Promise<GetManySample[]> {
	const child = spawnTs(CHILD, [JSON.stringify(config)], ['--expose-gc']);
	const stderr = stderrOf(child);
	let stdout = '';
	child.stdout?.setEncoding('utf8');
	child.stdout?.on('data', (chunk: string) => (stdout += chunk));
	const code = await withTimeout(
		exited(child),
		5 * 60_000,
		`Get Many child (${config.side}, ${config.expected} leads)`,
	).finally(
		// Gone already when it finished; stopped (by its pid) when it did not in time.
		() => stopChild(child),
	);
	if (code !== 0)
		throw new Error(
			`Get Many child (${config.side}, ${config.expected}) exited ${String(code)}: ${stderr().slice(-2000)}`,
		);
	const line = stdout.trim().split('\n').at(-1) ?? '[]';
	return JSON.parse(line) as GetManySample[];
}

interface SizeFigures {
	size: number;
	side: 'ours' | 'bare';
	seconds: number;
	pages: number;
	peakHeapMiB: number;
	peakRssMiB: number;
	retainedHeapMiB: number;
	samples: GetManySample[];
}

function figures(size: number, side: 'ours' | 'bare', samples: GetManySample[]): SizeFigures {
	return {
		size,
		side,
		// ours: n8n's execution time of the node; bare: the paging loop
		seconds: median(samples.map((sample) => (sample.nodeMs ?? sample.wallMs) / 1000)),
		pages: samples[0]?.pages ?? NaN,
		// memory from the first run: the process's first full pass over the list
		peakHeapMiB: samples[0]?.peakHeapMiB ?? NaN,
		peakRssMiB: samples[0]?.peakRssMiB ?? NaN,
		retainedHeapMiB: samples[0]?.retainedHeapMiB ?? NaN,
		samples,
	};
}

const LINEAR_TOLERANCE: [number, number] = [3.5, 6.5];

export async function getManyCase(ctx: BenchContext): Promise<Omit<CaseResult, 'seconds'>> {
	const { sim, config } = ctx;
	const results: SizeFigures[] = [];
	for (const size of config.getManySizes) {
		await sim.reset();
		await sim.seedLeads(size);
		for (const side of ['ours', 'bare'] as const) {
			const samples = await runChild({ side, info: sim.info, expected: size, runs: config.runs });
			results.push(figures(size, side, samples));
			ctx.log(
				`  get many ${size}, ${side}: ${results.at(-1)?.seconds.toFixed(2)} s, ${results.at(-1)?.pages} pages, peak heap +${results.at(-1)?.peakHeapMiB.toFixed(0)} MiB`,
			);
		}
	}
	await sim.reset();

	const rows: Row[] = [];
	const of = (size: number, side: 'ours' | 'bare') =>
		results.find((entry) => entry.size === size && entry.side === side);
	for (const size of config.getManySizes) {
		const ours = of(size, 'ours');
		const bare = of(size, 'bare');
		if (!ours || !bare) continue;
		const label = size.toLocaleString('en-US');
		rows.push(
			{
				case: '3 get many',
				metric: `${label} leads: time (s)`,
				ours: ours.seconds,
				baseline: bare.seconds,
				ratio: ratio(ours.seconds, bare.seconds),
				note: 'ours: n8n executionTime of Lead > Get Many (Return All, Simplify); baseline: undici paging skip/limit 100 and simplifying the same leads; each side and size in its own --expose-gc process, median of runs',
			},
			{
				case: '3 get many',
				metric: `${label} leads: pages fetched`,
				ours: ours.pages,
				baseline: bare.pages,
				ratio: ratio(ours.pages, bare.pages),
			},
			{
				case: '3 get many',
				metric: `${label} leads: peak heap above baseline (MiB)`,
				ours: ours.peakHeapMiB,
				baseline: bare.peakHeapMiB,
				ratio: ratio(ours.peakHeapMiB, bare.peakHeapMiB),
				note: 'heapUsed / RSS sampled every 5 ms during the first measured run, minus the value right before it (after a full GC); output items included, as n8n holds them',
			},
			{
				case: '3 get many',
				metric: `${label} leads: peak RSS above baseline (MiB)`,
				ours: ours.peakRssMiB,
				baseline: bare.peakRssMiB,
				// a ratio to a baseline of (almost) nothing says nothing
				ratio: bare.peakRssMiB >= 1 ? ratio(ours.peakRssMiB, bare.peakRssMiB) : undefined,
				note: 'RSS only grows when the heap needs pages it has not had yet, and is never given back at once: a noisy figure (it can even be below the baseline)',
			},
			{
				case: '3 get many',
				metric: `${label} leads: heap retained with the output (MiB)`,
				ours: ours.retainedHeapMiB,
				baseline: bare.retainedHeapMiB,
				ratio: ratio(ours.retainedHeapMiB, bare.retainedHeapMiB),
				note: 'heapUsed after the run and a full GC, the output still referenced, minus the baseline: what the result itself costs (n8n keeps every output item of a run)',
			},
		);
	}
	const [small, large] = config.getManySizes;
	const smallOurs = of(small, 'ours');
	const largeOurs = of(large, 'ours');
	const smallBare = of(small, 'bare');
	const largeBare = of(large, 'bare');
	if (smallOurs && largeOurs && smallBare && largeBare) {
		const expected = large / small;
		const within = (value: number) =>
			value >= (LINEAR_TOLERANCE[0] * expected) / 5 &&
			value <= (LINEAR_TOLERANCE[1] * expected) / 5;
		const scale = `${(large / 1000).toFixed(0)}k/${(small / 1000).toFixed(0)}k`;
		const target = `~${expected.toFixed(0)} x (${((LINEAR_TOLERANCE[0] * expected) / 5).toFixed(1)}-${((LINEAR_TOLERANCE[1] * expected) / 5).toFixed(1)})`;
		const timeRatio = ratio(largeOurs.seconds, smallOurs.seconds);
		const retainedRatio = ratio(largeOurs.retainedHeapMiB, smallOurs.retainedHeapMiB);
		rows.push(
			{
				case: '3 get many',
				metric: `time ratio ${scale}`,
				ours: timeRatio,
				baseline: ratio(largeBare.seconds, smallBare.seconds),
				target,
				met: within(timeRatio),
				note: "Ours and Baseline columns hold each side's own large/small ratio here; linear = the size ratio",
			},
			{
				case: '3 get many',
				metric: `retained heap ratio ${scale}`,
				ours: retainedRatio,
				baseline: ratio(largeBare.retainedHeapMiB, smallBare.retainedHeapMiB),
				target,
				met: within(retainedRatio),
			},
			{
				case: '3 get many',
				metric: `peak heap ratio ${scale}`,
				ours: ratio(largeOurs.peakHeapMiB, smallOurs.peakHeapMiB),
				baseline: ratio(largeBare.peakHeapMiB, smallBare.peakHeapMiB),
				note: "the peak includes garbage not yet collected (each page's JSON), so it depends on when V8 collects; pages are read one at a time, so only the output grows with the list",
			},
		);
	}
	return {
		id: '3',
		title: 'Get Many / Return All',
		rows,
		details: { sizes: results },
	};
}
