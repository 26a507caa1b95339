/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What the polling trigger costs and how soon a change runs, by portal size: the node's real
 * poll() in n8n-core's PollContext (test/harness/polls.ts) against the simulator over loopback,
 * with n8n's defaults (Poll Times every minute, List Requests per Minute 30) and pages of 100.
 * Minutes are simulated: the clock (n8n's and the simulator's, one process) moves a minute
 * before each look, so a sweep of 500,000 leads takes seconds, not hours.
 *
 * Per size: the portal seeded, one lead created a minute later (the list shows its order), the
 * trigger activated and looked at until its first sweep (the baseline) ends; then a create, an
 * update of the lead in the middle of the list and a delete of another, and looks until each ran
 * once. Printed: list requests per look (most), looks per sweep, minutes from each change to its
 * run, wall time per look, static data. "Before": the rule of main at 33d1119 (each look read
 * the whole list; a Poll Time was skipped until its requests were paid for at 30 a minute).
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/polling-requests.ts [--quick]
 *
 * Also case 6 of `npm run bench` (`pollingCase`: the same, as table rows; quick: 1,000 leads).
 */
import './env';
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_LIST_REQUESTS_PER_MINUTE } from '../nodes/PartnerLeadsPollingTrigger/pollTiming';
import { N8nHarness } from '../test/harness/harness';
import { PollHost } from '../test/harness/polls';
import { startSimulator } from '../test/simulator';
import type { Simulator } from '../test/simulator';
import { runMain } from './processes';
import type { CaseResult, Row } from './report';

const SIZES = [1_000, 10_000, 50_000, 500_000];
const PAGE = 100;
/** Looks at most per measurement: past it the bench fails rather than print a figure. */
const MAX_LOOKS = 2_000;

interface SweepCost {
	leads: number;
	mostRequestsPerLook: number;
	looksPerSweep: number;
	minutesToRun: { create: number; update: number; delete: number | undefined };
	msPerLook: number[];
	stateBytes: number;
}

const realNow = Date.now.bind(Date);
let minutesAhead = 0;

function listRequests(sim: Simulator): number {
	return sim.control.stats().byRoute['GET /leads'] ?? 0;
}

/** A look a minute after the last: its list requests, and its wall time. */
async function look(sim: Simulator, poller: PollHost, cost: SweepCost): Promise<void> {
	minutesAhead++;
	const before = listRequests(sim);
	const started = performance.now();
	await poller.poll();
	cost.msPerLook.push(performance.now() - started);
	cost.mostRequestsPerLook = Math.max(cost.mostRequestsPerLook, listRequests(sim) - before);
	if (poller.errors.length > 0) throw poller.errors[0];
}

function pollState(poller: PollHost): IDataObject {
	return (poller.nodeDataNow().polling ?? {}) as IDataObject;
}

async function sweepCost(leads: number): Promise<SweepCost> {
	const machineNow = Date.now;
	Date.now = () => realNow() + minutesAhead * 60_000;
	const sim = await startSimulator({ seed: leads });
	const cost: SweepCost = {
		leads,
		mostRequestsPerLook: 0,
		looksPerSweep: 0,
		minutesToRun: { create: 0, update: 0, delete: undefined },
		msPerLook: [],
		stateBytes: 0,
	};
	try {
		const seeded = sim.control.seedLeads(leads);
		minutesAhead++;
		sim.control.portalCreateLead({ firstName: 'shows', lastName: 'Order' });
		const poller = new PollHost(new N8nHarness(sim), {
			events: ['lead/create', 'lead/update', 'lead/delete'],
		});
		await poller.activate();
		for (let looks = 0; pollState(poller).presentUpTo !== undefined; looks++) {
			if (looks > MAX_LOOKS) throw new Error('the first sweep did not end');
			await look(sim, poller, cost);
		}
		// a whole sweep, counted: from the end of the first to the end of the second
		const sweepsEnded = () => pollState(poller).sweep as IDataObject;
		for (let looks = 0; ; looks++) {
			if (looks > MAX_LOOKS) throw new Error('the second sweep did not end');
			await look(sim, poller, cost);
			if (sweepsEnded().resumeToken === undefined) {
				cost.looksPerSweep = looks + 1;
				break;
			}
		}
		await changesToRuns(sim, poller, seeded, cost);
		cost.stateBytes = JSON.stringify(poller.store.nodeData(poller.node.name)).length;
		return cost;
	} finally {
		await sim.close();
		Date.now = machineNow;
	}
}

/** A create, an update mid-list and a delete, then looks until each ran: minutes to each. */
async function changesToRuns(
	sim: Simulator,
	poller: PollHost,
	seeded: Array<{ id: string }>,
	cost: SweepCost,
): Promise<void> {
	minutesAhead++;
	const created = sim.control.portalCreateLead({ firstName: 'new', lastName: 'Lead' });
	const updated = seeded[Math.floor(seeded.length / 2)];
	const deleted = seeded[Math.floor(seeded.length / 3)];
	sim.control.portalUpdateLead(updated.id, { value: 42 });
	sim.control.portalDeleteLead(deleted.id);
	const wanted = new Map([
		[`lead/create ${created.id}`, 'create'],
		[`lead/update ${updated.id}`, 'update'],
		[`lead/delete ${deleted.id}`, 'delete'],
	] as const);
	// the last sweep's ids, packed or sketched (a portal past PACKED_LISTING_UP_TO_BYTES)
	const state = pollState(poller);
	const idsKept =
		state.idsOfLastSweep === true || (state.sketches as IDataObject)?.last !== undefined;
	const minutesTo = new Map<string, number>();
	const before = poller.events().length;
	for (let minutes = 1; minutes <= cost.looksPerSweep * 2 + 2; minutes++) {
		await look(sim, poller, cost);
		for (const event of poller.events().slice(before)) {
			const change = wanted.get(event as never);
			if (change && !minutesTo.has(change)) minutesTo.set(change, minutes);
		}
		if (minutesTo.size === (idsKept ? 3 : 2)) break;
	}
	const ran = poller.events().slice(before);
	if (new Set(ran).size !== ran.length) throw new Error(`a change ran twice: ${ran.join(', ')}`);
	if (!minutesTo.has('create') || !minutesTo.has('update') || (idsKept && !minutesTo.has('delete')))
		throw new Error(`not every change ran: ${ran.join(', ')}`);
	cost.minutesToRun = {
		create: minutesTo.get('create') ?? 0,
		update: minutesTo.get('update') ?? 0,
		delete: minutesTo.get('delete'),
	};
}

/** The rule at 33d1119: the whole list each look, looks spaced until their requests are paid for. */
function before(leads: number): { requests: number; minutes: number } {
	const requests = Math.ceil(leads / (PAGE - 1)) + 1;
	return { requests, minutes: Math.max(1, Math.ceil(requests / DEFAULT_LIST_REQUESTS_PER_MINUTE)) };
}

function spread(ms: number[]): string {
	const sorted = [...ms].sort((a, b) => a - b);
	const f = (value: number) => value.toFixed(0);
	return `${f(sorted[0])} / ${f(sorted[Math.floor(sorted.length / 2)])} / ${f(sorted[sorted.length - 1])}`;
}

const n = (value: number) => value.toLocaleString('en-US');

/** Case 6 of `npm run bench` (quick: 1,000 leads only). */
export async function pollingCase(quick: boolean): Promise<Omit<CaseResult, 'seconds'>> {
	const rows: Row[] = [];
	const details: Record<string, unknown> = {};
	for (const leads of quick ? SIZES.slice(0, 1) : SIZES.slice(0, 3)) {
		const cost = await sweepCost(leads);
		const where = `${n(leads)} leads`;
		const was = before(leads);
		rows.push(
			{
				case: '6 polling',
				metric: `${where}: list requests per look (most)`,
				ours: cost.mostRequestsPerLook,
				note: `before: ${was.requests} (the whole list)`,
			},
			{
				case: '6 polling',
				metric: `${where}: minutes from a create to its run`,
				ours: cost.minutesToRun.create,
				note: `before: up to ${was.minutes}`,
			},
			{
				case: '6 polling',
				metric: `${where}: minutes from an update to its run (a sweep: ${cost.looksPerSweep} looks)`,
				ours: cost.minutesToRun.update,
				note: `before: up to ${was.minutes}`,
			},
			{ case: '6 polling', metric: `${where}: static data bytes`, ours: cost.stateBytes },
		);
		details[String(leads)] = cost;
	}
	return { id: '6', title: 'polling trigger: sliced sweeps', rows, details };
}

async function main(): Promise<void> {
	const quick = process.argv.includes('--quick');
	const rows: string[] = [
		'| Leads | List requests per look, most (before) | Looks per sweep = minutes for every lead to be read again (before) | Minutes: create / update / delete to its run | ms per look (min / median / max) | Static data (bytes) |',
		'|---|---|---|---|---|---|',
	];
	for (const leads of quick ? SIZES.slice(0, 1) : SIZES) {
		const cost = await sweepCost(leads);
		const was = before(leads);
		const { create, update, delete: deleted } = cost.minutesToRun;
		rows.push(
			`| ${n(leads)} | ${cost.mostRequestsPerLook} (${n(was.requests)}) | ${cost.looksPerSweep} (${n(was.minutes)}) | ${create} / ${update} / ${deleted ?? 'not reported'} | ${spread(cost.msPerLook)} | ${n(cost.stateBytes)} |`,
		);
		process.stderr.write(`${n(leads)} leads done\n`);
	}
	process.stdout.write(
		`The polling trigger with n8n's defaults, pages of ${PAGE}:\n${rows.join('\n')}\n`,
	);
}

if (require.main === module) runMain(main);
