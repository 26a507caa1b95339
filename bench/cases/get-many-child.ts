/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * One size of case 3 in its own process (started with --expose-gc), so its memory figures
 * start from a clean heap: `node --expose-gc get-many-child.ts '<json config>'`.
 * Prints one JSON line (GetManySample[]) on stdout.
 *
 * side 'ours': Lead > Get Many, Return All, Simplify on, through n8n-core.
 * side 'bare': an undici client paging the same list (skip/limit 100) and keeping the same
 * simplified leads, as the baseline.
 */
import '../env';

import type { IDataObject } from 'n8n-workflow';
import { Pool } from 'undici';

import { simplifyLead } from '../../nodes/PartnerLeads/helpers/leadValues';
import { BareClient } from '../bare-client';
import { collectGarbage, memoryNow, MiB, PeakMemory, timed } from '../measure';
import { freshHarness, getManyParameters, nodeExecutionMs } from '../n8n';
import type { SimInfo } from '../sim';
import { RemoteSimulator, routeCount } from '../sim';
import { runMain } from '../processes';

export interface GetManyChildConfig {
	side: 'ours' | 'bare';
	info: SimInfo;
	expected: number;
	runs: number;
}

export interface GetManySample {
	side: 'ours' | 'bare';
	wallMs: number;
	/** ours: n8n's executionTime of the node */
	nodeMs?: number;
	items: number;
	pages: number;
	/** highest heapUsed / RSS seen during the run, above the value right before it (after a full GC) */
	peakHeapMiB: number;
	peakRssMiB: number;
	/** heap still used after the run with its output referenced, above the baseline (after a full GC) */
	retainedHeapMiB: number;
}

const PAGE = 100;

/** The baseline: page through the list, keep each lead simplified, as the node outputs it. */
async function bareGetAll(
	info: SimInfo,
	token: string,
	maxPages = 1_000_000,
): Promise<IDataObject[]> {
	const api = new URL(info.url);
	const pool = new Pool(api.origin, { connections: 1 });
	const path = `${api.pathname.replace(/\/$/, '')}/1.0/api/company/${info.companyId}/leads`;
	const out: IDataObject[] = [];
	try {
		for (let skip = 0; skip < maxPages * PAGE; skip += PAGE) {
			const response = await pool.request({
				method: 'GET',
				path: `${path}?skip=${skip}&limit=${PAGE}`,
				headers: { accept: 'application/json', authorization: `Bearer ${token}` },
			});
			const body = (await response.body.json()) as { data: IDataObject[] };
			if (response.statusCode !== 200) throw new Error(`bare list answered ${response.statusCode}`);
			for (const lead of body.data) out.push(simplifyLead(lead));
			if (body.data.length < PAGE) break;
		}
	} finally {
		await pool.close();
	}
	return out;
}

async function bareToken(info: SimInfo): Promise<string> {
	const client = new BareClient(info, { connections: 1 });
	try {
		await client.fetchToken();
		return client.bearer;
	} finally {
		await client.close();
	}
}

async function main(): Promise<void> {
	const config = JSON.parse(process.argv[2] ?? '{}') as GetManyChildConfig;
	if (!(globalThis as { gc?: unknown }).gc) throw new Error('start this process with --expose-gc');
	const sim = RemoteSimulator.attach(config.info);
	const harness = freshHarness(sim);
	let token = '';

	// Warm-up on a short list read (also fetches the token, so the runs measure paging only).
	if (config.side === 'ours') {
		const warm = await harness.runNode({
			parameters: { ...getManyParameters(), returnAll: false, limit: 1000 },
		});
		if (warm.error) throw new Error(warm.error.message);
	} else {
		token = await bareToken(config.info);
		await bareGetAll(config.info, token, 10);
	}

	const samples: GetManySample[] = [];
	for (let run = 0; run < config.runs; run++) {
		collectGarbage();
		const base = memoryNow();
		const before = routeCount(await sim.stats(), 'GET /leads');
		const peak = new PeakMemory(5);
		let items: number;
		let nodeMs: number | undefined;
		let output: unknown;
		const { ms } = await timed(async () => {
			if (config.side === 'ours') {
				const result = await harness.runNode({ parameters: getManyParameters() });
				if (result.error) throw new Error(result.error.message);
				items = result.items.length;
				nodeMs = nodeExecutionMs(result);
				output = result;
			} else {
				const leads = await bareGetAll(config.info, token);
				items = leads.length;
				output = leads;
			}
		});
		const peakPoint = peak.stop();
		const pages = routeCount(await sim.stats(), 'GET /leads') - before;
		collectGarbage();
		const retained = memoryNow();
		if (items! !== config.expected)
			throw new Error(`${config.side}: ${items!} items, expected ${config.expected}`);
		samples.push({
			side: config.side,
			wallMs: ms,
			nodeMs,
			items: items!,
			pages,
			peakHeapMiB: (peakPoint.heapUsed - base.heapUsed) / MiB,
			peakRssMiB: (peakPoint.rss - base.rss) / MiB,
			retainedHeapMiB: (retained.heapUsed - base.heapUsed) / MiB,
		});
		// Dropped only now, so "retained" above measured the output still held.
		output = undefined;
		void output;
	}
	await sim.close();
	process.stdout.write(`${JSON.stringify(samples)}\n`);
}

runMain(main);
