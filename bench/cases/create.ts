/**
 * Case 1: create N leads through the node (Lead > Create, Parallel Requests 1 and 8) and
 * through a bare undici client sending the same bodies (1 and 8 in flight). Every run
 * starts from a reset simulator and, on our side, a freshly saved credential (no token).
 *
 * Diagnostic variants (rows without a target) show where the time goes: n8n's own floor
 * for one authenticated request per item, our node with a function `authenticate`, the bare
 * client opening a connection per request as n8n does, and fields mapped by expressions.
 */
import type { IDataObject } from 'n8n-workflow';

import type { N8nHarness } from '../../test/harness/harness';
import type { RequestStats } from '../../test/simulator/types';
import { BareClient } from '../bare-client';
import { median, perSecond, ratio, timed } from '../measure';
import { createBody, createParameters, leadItems, nodeExecutionMs } from '../n8n';
import type { CaseResult, Row } from '../report';
import type { RemoteSimulator } from '../sim';
import { routeCount, statusCount } from '../sim';
import { withTimeout } from '../processes';
import { BenchHarness, GenericAuthenticateHarness, HTTP_FLOOR_TYPE } from '../what-if';
import type { BenchContext } from './context';

/**
 * ours            the node, Lead Fields mapped automatically
 * ours-expr       the node, Lead Fields mapped by one expression per field
 * ours-genauth    the node, credential authenticate as a generic expression (what-if)
 * floor           a minimal node: httpRequestWithAuthentication per item, nothing else
 * bare            undici keep-alive pool
 * bare-noka       undici, a new connection per request
 */
export type Variant = 'ours' | 'ours-expr' | 'ours-genauth' | 'floor' | 'bare' | 'bare-noka';

export interface CreateSample {
	variant: Variant;
	parallel: number;
	/** n8n's executionTime of the node (our side), or the client's loop incl. its token (bare) */
	ms: number;
	/** the whole workflow run (our side) */
	wallMs?: number;
	stats: RequestStats;
}

export interface CreateMeasurements {
	count: number;
	samples: CreateSample[];
}

/** One run of a few thousand creates takes seconds; minutes mean something hangs. */
const RUN_TIMEOUT_MS = 5 * 60_000;

export const NODE_VARIANTS: readonly Variant[] = ['ours', 'ours-expr', 'ours-genauth'];

function checkCreated(stats: RequestStats, count: number, who: string): void {
	const created = statusCount(stats, 'POST /leads', 201);
	const sent = routeCount(stats, 'POST /leads');
	if (created !== count || sent !== count) {
		throw new Error(
			`${who}: expected ${count} creates, the service saw ${sent} requests and ${created} leads created`,
		);
	}
}

function harnessFor(sim: RemoteSimulator, variant: Variant): N8nHarness {
	return variant === 'ours-genauth'
		? new GenericAuthenticateHarness(sim.addresses())
		: new BenchHarness(sim.addresses());
}

async function runNodeSide(
	sim: RemoteSimulator,
	items: IDataObject[],
	bodies: IDataObject[],
	variant: Variant,
	parallel: number,
): Promise<CreateSample> {
	const harness = harnessFor(sim, variant);
	const who = `${variant} (${parallel} in flight)`;
	const { ms, value: run } = await timed(() =>
		variant === 'floor'
			? harness.runNode({
					type: HTTP_FLOOR_TYPE,
					parameters: {
						url: `${sim.info.url}/1.0/api/company/${sim.info.companyId}/leads`,
						inFlight: parallel,
					},
					items: bodies,
				})
			: harness.runNode({
					parameters: createParameters(
						sim,
						parallel,
						variant === 'ours-expr' ? 'expressions' : 'auto',
					),
					items,
				}),
	);
	if (run.error) throw new Error(`${who}: ${run.error.message}`);
	if (
		run.items.length !== items.length ||
		run.items.some((item) => typeof item.json.id !== 'string')
	) {
		throw new Error(`${who}: ${run.items.length} leads out of ${items.length}`);
	}
	const stats = await sim.stats();
	checkCreated(stats, items.length, who);
	return { variant, parallel, ms: nodeExecutionMs(run) ?? ms, wallMs: ms, stats };
}

async function runBareSide(
	sim: RemoteSimulator,
	bodies: IDataObject[],
	variant: Variant,
	parallel: number,
): Promise<CreateSample> {
	const client = new BareClient(sim.info, {
		connections: parallel,
		noKeepAlive: variant === 'bare-noka',
	});
	try {
		const { ms, value: leads } = await timed(async () => {
			await client.fetchToken();
			return await client.createAll(bodies, parallel);
		});
		if (leads.some((lead) => typeof (lead as { id?: unknown } | undefined)?.id !== 'string')) {
			throw new Error(`${variant}: a create answered without a lead id`);
		}
		const stats = await sim.stats();
		checkCreated(stats, bodies.length, `${variant} (${parallel} in flight)`);
		return { variant, parallel, ms, stats };
	} finally {
		await client.close();
	}
}

/** One run of one variant on a reset simulator. */
export async function createRun(
	sim: RemoteSimulator,
	items: IDataObject[],
	variant: Variant,
	parallel: number,
): Promise<CreateSample> {
	await sim.reset();
	const bodies = items.map((item) => createBody(item, sim));
	const run =
		variant === 'bare' || variant === 'bare-noka'
			? runBareSide(sim, bodies, variant, parallel)
			: runNodeSide(sim, items, bodies, variant, parallel);
	return await withTimeout(run, RUN_TIMEOUT_MS, `${variant} creating ${items.length} leads`);
}

/** Runs the variants in rotation `runs` times (after one warm-up run each), so drift hits all of them alike. */
async function measureGroup(
	ctx: BenchContext,
	variants: Variant[],
	parallel: number,
	into: CreateSample[],
): Promise<void> {
	const { sim, config } = ctx;
	const items = leadItems(config.createCount, 'bench');
	const warmItems = leadItems(Math.min(300, config.createCount), 'warm');
	for (const variant of variants) await createRun(sim, warmItems, variant, parallel);
	for (let run = 0; run < config.runs; run++) {
		const order = run % 2 === 0 ? variants : [...variants].reverse();
		const line: string[] = [];
		for (const variant of order) {
			const sample = await createRun(sim, items, variant, parallel);
			into.push(sample);
			line.push(`${variant} ${Math.round(sample.ms)} ms`);
		}
		ctx.log(
			`  create x${config.createCount}, ${parallel} in flight, run ${run + 1}/${config.runs}: ${line.join(', ')}`,
		);
	}
}

export async function measureCreates(ctx: BenchContext): Promise<CreateMeasurements> {
	const { config } = ctx;
	const samples: CreateSample[] = [];
	try {
		const diagnostics: Variant[] = config.diagnostics ? ['floor', 'ours-genauth', 'bare-noka'] : [];
		await measureGroup(ctx, ['ours', 'bare', ...diagnostics], 1, samples);
		await measureGroup(ctx, ['ours', 'bare', ...diagnostics], config.parallel, samples);
		if (config.diagnostics) await measureGroup(ctx, ['ours-expr'], 1, samples);
	} finally {
		await ctx.sim.reset();
	}
	return { count: config.createCount, samples };
}

export function createRows(m: CreateMeasurements, parallel: number): Row[] {
	const rate = (variant: Variant, p: number) =>
		perSecond(
			m.count,
			median(
				m.samples
					.filter((sample) => sample.variant === variant && sample.parallel === p)
					.map((sample) => sample.ms),
			),
		);
	const seq = rate('ours', 1);
	const par = rate('ours', parallel);
	const bareSeq = rate('bare', 1);
	const barePar = rate('bare', parallel);
	const rows: Row[] = [
		{
			case: '1 create',
			metric: `sequential, ${m.count.toLocaleString('en-US')} leads (leads/s)`,
			ours: seq,
			baseline: bareSeq,
			ratio: ratio(seq, bareSeq),
			target: '>= 0.80 x bare',
			met: ratio(seq, bareSeq) >= 0.8,
			note: "ours: Lead > Create (Map Automatically), the node's executionTime as n8n records it, its token and schema requests included; bare: undici keep-alive pool, same bodies, own token fetched once (included); median of runs",
		},
		{
			case: '1 create',
			metric: `parallel ${parallel} (leads/s)`,
			ours: par,
			baseline: barePar,
			ratio: ratio(par, barePar),
			target: '>= 0.80 x bare',
			met: ratio(par, barePar) >= 0.8,
		},
		{
			case: '1 create',
			metric: `parallel ${parallel} vs our sequential`,
			ours: par,
			baseline: seq,
			ratio: ratio(par, seq),
			target: '>= 4.0 x',
			met: ratio(par, seq) >= 4,
			note: `Baseline column: our own sequential figure. The bare client's own speed-up from 1 to ${parallel} in flight: ${ratio(barePar, bareSeq).toFixed(2)} x`,
		},
	];
	/** A diagnostic row: `variant` in the Ours column against `against` in the Baseline column. */
	const diagnostic = (
		variant: Variant,
		against: Variant,
		p: number,
		metric: string,
		note: string,
	) => {
		const value = rate(variant, p);
		const base = rate(against, p);
		if (Number.isFinite(value) && Number.isFinite(base))
			rows.push({
				case: '1 create',
				metric,
				ours: value,
				baseline: base,
				ratio: ratio(value, base),
				note,
			});
	};
	for (const p of [1, parallel]) {
		const at = p === 1 ? 'sequential' : `parallel ${p}`;
		diagnostic(
			'ours',
			'floor',
			p,
			`diag ${at}: ours vs n8n floor`,
			'Ours: our node; Baseline: a minimal node that only calls this.helpers.httpRequestWithAuthentication per item with the same credential and bodies (what any node pays in n8n per request)',
		);
		diagnostic(
			'ours-genauth',
			'ours',
			p,
			`diag ${at}: what-if generic-expression authenticate`,
			"Ours: our node with the credential's authenticate as the generic {{$credentials.accessToken}} expression n8n resolves per request (the credential's first version); Baseline: our node as it is (Bearer header set in code)",
		);
		diagnostic(
			'bare-noka',
			'bare',
			p,
			`diag ${at}: bare, new connection per request`,
			"Ours: the bare client opening a TCP connection per request, as n8n's HTTP helper does (@n8n/backend-network builds a new http.Agent per request); Baseline: the bare keep-alive client",
		);
	}
	diagnostic(
		'ours-expr',
		'ours',
		1,
		'diag sequential: fields mapped by 5 expressions',
		'Ours: Lead Fields mapped with {{ $json.field }} expressions instead of Map Automatically; Baseline: our node mapped automatically',
	);
	return rows;
}

export async function createCase(
	ctx: BenchContext,
): Promise<{ result: Omit<CaseResult, 'seconds'>; measurements: CreateMeasurements }> {
	const measurements = await measureCreates(ctx);
	return {
		measurements,
		result: {
			id: '1',
			title: `Create ${measurements.count} leads`,
			rows: createRows(measurements, ctx.config.parallel),
			details: {
				count: measurements.count,
				samples: measurements.samples.map((sample) => ({
					variant: sample.variant,
					parallel: sample.parallel,
					ms: sample.ms,
					wallMs: sample.wallMs,
				})),
			},
		},
	};
}
