/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What one poll of the polling trigger costs, by portal size and page cap: the node's real
 * poll() in n8n-core's PollContext (test/harness/polls.ts) against the simulator over
 * loopback. Each poll finds one new lead (one more request to fetch it with Fetch Full Lead).
 * Also the static data the trigger keeps, by the form of the service's lead ids.
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/polling-requests.ts
 *
 * Also case 6 of `npm run bench` (`pollingCase`: the same polls, as table rows).
 */
import { randomBytes, randomUUID } from 'node:crypto';

import './env';
import { N8nHarness } from '../test/harness/harness';
import { PollHost } from '../test/harness/polls';
import { DEFAULT_PERSONALITY, startSimulator } from '../test/simulator';
import { packIds, packedBytes } from '../nodes/shared/changes/leadIds';
import { runMain } from './processes';
import type { CaseResult, Row } from './report';

const SIZES = [1_000, 10_000, 50_000];
const CAPS = [7, 100];
const RUNS = 3;

interface PollCost {
	requests: number;
	ms: number[];
	stateBytes: number;
}

async function pollCost(cap: number, leads: number): Promise<PollCost> {
	const sim = await startSimulator({
		seed: cap,
		personality: { ...DEFAULT_PERSONALITY, name: `cap-${cap}`, listPageCap: cap },
	});
	try {
		sim.control.seedLeads(leads);
		const poller = new PollHost(new N8nHarness(sim), {
			events: ['lead/create', 'lead/update', 'lead/delete'],
			options: { listRequestsPerMinute: 1_000_000 },
		});
		await poller.activate();
		const cost: PollCost = { requests: 0, ms: [], stateBytes: 0 };
		for (let run = 0; run < RUNS; run++) {
			sim.control.portalCreateLead({ firstName: `new${run}`, lastName: 'Lead' });
			await new Promise((resolve) => setTimeout(resolve, 5));
			sim.control.resetStats();
			const started = performance.now();
			await poller.poll();
			cost.ms.push(performance.now() - started);
			cost.requests = sim.control.stats().byRoute['GET /leads'] ?? 0;
		}
		if (poller.executions.length !== RUNS || poller.errors.length > 0)
			throw new Error(`expected ${RUNS} executions, got ${poller.executions.length}`);
		cost.stateBytes = JSON.stringify(poller.store.nodeData(poller.node.name)).length;
		return cost;
	} finally {
		await sim.close();
	}
}

function spread(ms: number[]): string {
	const sorted = [...ms].sort((a, b) => a - b);
	const f = (value: number) => (value / 1000).toFixed(2);
	return `${f(sorted[0])} / ${f(sorted[Math.floor(sorted.length / 2)])} / ${f(sorted[sorted.length - 1])}`;
}

function idBytes(): string[] {
	const forms: Record<string, () => string> = {
		'24 hex': () => randomBytes(12).toString('hex'),
		UUID: () => randomUUID(),
		'7-digit number': () => String(1_000_000 + Math.floor(Math.random() * 8_999_999)),
	};
	const rows = ['| Lead ids | 10,000 leads | 50,000 leads |', '|---|---|---|'];
	for (const [form, make] of Object.entries(forms)) {
		const cells = [10_000, 50_000].map((count) =>
			packedBytes(packIds(Array.from({ length: count }, make))).toLocaleString('en-US'),
		);
		rows.push(`| ${form} | ${cells.join(' | ')} |`);
	}
	return rows;
}

/** Case 6 of `npm run bench`: one poll by portal size and page cap (quick: 1,000 leads only). */
export async function pollingCase(quick: boolean): Promise<Omit<CaseResult, 'seconds'>> {
	const rows: Row[] = [];
	const details: Record<string, unknown> = {};
	for (const leads of quick ? SIZES.slice(0, 1) : SIZES) {
		for (const cap of CAPS) {
			const cost = await pollCost(cap, leads);
			const where = `${leads.toLocaleString('en-US')} leads, pages of ${cap}`;
			const median = [...cost.ms].sort((a, b) => a - b)[Math.floor(cost.ms.length / 2)];
			rows.push(
				{ case: '6 polling', metric: `${where}: list requests per poll`, ours: cost.requests },
				{
					case: '6 polling',
					metric: `${where}: seconds per poll (median of ${RUNS})`,
					ours: Number((median / 1000).toFixed(2)),
					note: `min / median / max ${spread(cost.ms)} s`,
				},
				{ case: '6 polling', metric: `${where}: static data bytes`, ours: cost.stateBytes },
			);
			details[`${leads}@${cap}`] = cost;
		}
	}
	return { id: '6', title: 'polling trigger: one poll', rows, details };
}

async function main(): Promise<void> {
	const rows: string[] = [
		'| Leads in the portal | Page cap | List requests per poll | Seconds per poll (min / median / max) | Static data (bytes, 24-hex ids) |',
		'|---|---|---|---|---|',
	];
	for (const leads of SIZES) {
		for (const cap of CAPS) {
			const cost = await pollCost(cap, leads);
			rows.push(
				`| ${leads.toLocaleString('en-US')} | ${cap} | ${cost.requests} | ${spread(cost.ms)} | ${cost.stateBytes.toLocaleString('en-US')} |`,
			);
		}
	}
	process.stdout.write(
		`One poll (${RUNS} runs, each finds one new lead):\n${rows.join('\n')}\n\nLead ids kept for deletes (bytes as JSON):\n${idBytes().join('\n')}\n`,
	);
}

if (require.main === module) runMain(main);
