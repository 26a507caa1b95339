import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { POLL_TIMING } from '../../../nodes/PartnerLeadsPollingTrigger/pollTiming';
import { movableClock, pollingHost, portalLead } from './helpers';

/**
 * A portal larger than one look's budget: the list is read in slices, a sweep over several
 * looks, each within List Requests per Minute (issue 65). Time passes by moving the clock a
 * minute per look (the simulator's clock moves with it), so the budget refills as in n8n.
 */

const REQUESTS_PER_MINUTE = 6;

// Dozens of looks a test: a busy machine (every suite at once) takes far longer than jest's
// default, and a test cut off leaves its look running into the next test's.
jest.setTimeout(180_000);
/** Pages a portal of these tests fills (about 3 looks a sweep), whatever the service's page size. */
const PAGES = 12;
let PORTAL = 0;

let sim: Simulator;
let harness: N8nHarness;
const clock = movableClock();

function aMinuteLater(): void {
	clock.later(60_000);
}

function listRequests(): number {
	return sim.control.stats().byRoute['GET /leads'] ?? 0;
}

/** Looks a minute apart: the list requests each sent. */
async function looks(poller: PollHost, count: number): Promise<number[]> {
	const sent: number[] = [];
	for (let look = 0; look < count; look++) {
		aMinuteLater();
		const before = listRequests();
		await poller.poll();
		sent.push(listRequests() - before);
	}
	return sent;
}

/** Looks enough for two whole sweeps at this service's page size, the newest end read first. */
function looksForTwoSweeps(leads: number): number {
	const pageSize = Math.min(sim.personality.listPageCap ?? 100, 100);
	const sweepRequests = REQUESTS_PER_MINUTE - POLL_TIMING.newestEndRequests;
	return 2 * (Math.ceil(leads / (pageSize - 1) / sweepRequests) + 2);
}

describe('PartnerLeadsPollingTrigger on a portal larger than a look', () => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 65 });
		harness = new N8nHarness(sim);
		PORTAL = PAGES * Math.min(sim.personality.listPageCap ?? 100, 100);
	});

	afterEach(async () => await sim.close());

	function slicedHost(durableCursors = false): PollHost {
		return pollingHost(
			harness,
			{ options: { listRequestsPerMinute: REQUESTS_PER_MINUTE } },
			{ durableCursors },
		);
	}

	it.each([false, true])(
		'reads the list a slice a look within List Requests per Minute and runs each change once, deletes when a sweep ends (durable cursors: %s)',
		async (durableCursors) => {
			const leads = sim.control.seedLeads(PORTAL);
			// a portal's leads are older than the publishing (a lead of the same second may be new)
			aMinuteLater();
			const poller = slicedHost(durableCursors);
			await poller.activate();
			expect(listRequests()).toBeLessThanOrEqual(REQUESTS_PER_MINUTE);
			// changes while the first sweep (the baseline) reads on: one in a slice read, one not yet
			// (with ties ordered by last change, newest first, moved behind the reader: not listed)
			aMinuteLater();
			sim.control.portalUpdateLead(leads[1].id, { value: 5 });
			sim.control.portalUpdateLead(leads[PORTAL - 2].id, { value: 6 });
			const sent = await looks(poller, looksForTwoSweeps(PORTAL));
			expect(poller.events().sort()).toEqual(
				[`lead/update ${leads[1].id}`, `lead/update ${leads[PORTAL - 2].id}`].sort(),
			);

			aMinuteLater();
			const fresh = portalLead(sim, 'fresh');
			sim.control.portalUpdateLead(leads[2].id, { value: 7 });
			sim.control.portalUpdateLead(leads[PORTAL - 3].id, { value: 8 });
			sim.control.portalDeleteLead(leads[PORTAL / 2].id);
			const before = poller.events().length;
			sent.push(...(await looks(poller, looksForTwoSweeps(PORTAL))));
			expect(poller.errors).toEqual([]);
			expect(Math.max(...sent)).toBeLessThanOrEqual(REQUESTS_PER_MINUTE);
			expect(poller.events().slice(before).sort()).toEqual(
				[
					`lead/create ${fresh.id}`,
					`lead/update ${leads[2].id}`,
					`lead/update ${leads[PORTAL - 3].id}`,
					`lead/delete ${leads[PORTAL / 2].id}`,
				].sort(),
			);
		},
	);

	it('runs nothing the portal held at activation through the whole first sweep', async () => {
		sim.control.seedLeads(PORTAL);
		aMinuteLater();
		portalLead(sim, 'before');
		const poller = slicedHost();
		await poller.activate();
		await looks(poller, looksForTwoSweeps(PORTAL));
		expect(poller.errors).toEqual([]);
		expect(poller.events()).toEqual([]);
	});

	it('runs a new lead at the next look once a sweep has shown where new leads appear', async () => {
		sim.control.seedLeads(PORTAL);
		aMinuteLater();
		// a later creation time shows the order (the seeded leads share one)
		portalLead(sim, 'shows-the-order');
		const poller = slicedHost();
		await poller.activate();
		await looks(poller, looksForTwoSweeps(PORTAL) / 2);
		for (const name of ['first', 'second']) {
			aMinuteLater();
			const lead = portalLead(sim, name);
			const before = poller.events().length;
			await looks(poller, 1);
			expect(poller.events().slice(before)).toEqual([`lead/create ${lead.id}`]);
		}
	});

	it('runs an update within a sweep, and at the next look where the list shows the lead changed last at its end', async () => {
		const leads = sim.control.seedLeads(PORTAL);
		aMinuteLater();
		portalLead(sim, 'shows-the-order');
		const poller = slicedHost();
		await poller.activate();
		const sweep = looksForTwoSweeps(PORTAL) / 2;
		await looks(poller, sweep);
		aMinuteLater();
		sim.control.portalUpdateLead(leads[PORTAL / 2].id, { value: 9 });
		let looked = 0;
		while (poller.events().length === 0 && looked < sweep)
			looked += (await looks(poller, 1)).length;
		expect(poller.events()).toEqual([`lead/update ${leads[PORTAL / 2].id}`]);
		if (sim.personality.listOrder === 'lastChangedLast') expect(looked).toBe(1);
		await looks(poller, sweep);
		expect(poller.events()).toHaveLength(1);
	});

	it('runs a lead that moves in the list while a sweep reads it once, as an update, never as a delete', async () => {
		const leads = sim.control.seedLeads(PORTAL);
		aMinuteLater();
		const poller = slicedHost();
		await poller.activate();
		const sweep = looksForTwoSweeps(PORTAL) / 2;
		const sweepState = () => (poller.nodeDataNow().polling as IDataObject).sweep as IDataObject;
		// the first look of a sweep after the baseline's
		for (let look = 0; sweepState().listed !== 0 || look === 0; look++) {
			if (look > sweep) throw new Error(`the baseline did not end in ${sweep} looks`);
			await looks(poller, 1);
		}
		await looks(poller, 1);
		// the first and last of the seeded leads: one is ahead of the reader, whichever way it reads
		aMinuteLater();
		const moved = [leads[0], leads[PORTAL - 1]];
		for (const lead of moved) sim.control.portalUpdateLead(lead.id, { value: 4 });
		const askedBefore = sim.control.stats().byRoute['GET /leads/:id'] ?? 0;
		await looks(poller, 2 * sweep);
		expect(poller.errors).toEqual([]);
		expect(poller.events().sort()).toEqual(moved.map((lead) => `lead/update ${lead.id}`).sort());
		const { listOrder, tieOrder } = sim.personality;
		if (listOrder === 'newestFirst' && tieOrder === 'lastChange')
			// the one ahead moved to the newest end of its ties, behind the reader: asked for
			expect(sim.control.stats().byRoute['GET /leads/:id'] ?? 0).toBeGreaterThan(askedBefore);
	});

	it.each([
		['killed before its commit (durable cursors)', true, 'before-commit'],
		['killed after its commit (durable cursors)', true, 'after-commit'],
		['restarted mid-sweep (n8n default)', false, undefined],
	] as const)(
		'loses nothing and runs nothing twice when n8n is %s',
		async (_name, durableCursors, dieAt) => {
			const leads = sim.control.seedLeads(PORTAL);
			let poller = slicedHost(durableCursors);
			await poller.activate();
			await looks(poller, looksForTwoSweeps(PORTAL) / 2);
			aMinuteLater();
			const early = leads[3];
			const late = leads[PORTAL - 4];
			sim.control.portalUpdateLead(early.id, { value: 1 });
			sim.control.portalUpdateLead(late.id, { value: 2 });
			sim.control.portalDeleteLead(leads[PORTAL / 4].id);
			const fresh = portalLead(sim, 'fresh');
			// the first look that runs something dies there; n8n's default: restarted a look later
			poller.dieAt = dieAt;
			const bound = looksForTwoSweeps(PORTAL);
			let look = 0;
			while (look++ < bound && (dieAt ? poller.dieAt !== undefined : poller.events().length === 0))
				await looks(poller, 1);
			if (!dieAt) await looks(poller, 1);
			expect(poller.dieAt).toBeUndefined();
			const before = poller.events();
			poller = poller.restarted();
			await poller.activate('init');
			await looks(poller, bound);
			const runs = [...before, ...poller.events()];
			expect(poller.errors).toEqual([]);
			expect(runs.sort()).toEqual(
				[
					`lead/create ${fresh.id}`,
					`lead/update ${early.id}`,
					`lead/update ${late.id}`,
					`lead/delete ${leads[PORTAL / 4].id}`,
				].sort(),
			);
		},
	);

	it('leaves the full leads it has no time to fetch to the next look, which reads the same part again, not to the next sweep', async () => {
		const leads = sim.control.seedLeads(PORTAL);
		const poller = pollingHost(
			harness,
			{ options: { listRequestsPerMinute: REQUESTS_PER_MINUTE } },
			{ durableCursors: true, pollBudgetMs: 1 },
		);
		await poller.activate();
		await looks(poller, looksForTwoSweeps(PORTAL) / 2);
		aMinuteLater();
		const changed = [leads[0], leads[1], leads[2]];
		for (const lead of changed) sim.control.portalUpdateLead(lead.id, { value: 5 });
		let looked = 0;
		while (poller.executions.length === 0 && looked < looksForTwoSweeps(PORTAL))
			looked += (await looks(poller, 1)).length;
		// the rest at the next looks, not a sweep later (a lead that moved behind the reader, as
		// ties ordered by last change move it, is asked for by the look that ends the sweep)
		for (let next = 0; poller.executions.length < 3 && next < 4; next++) await looks(poller, 1);
		expect(poller.errors).toEqual([]);
		// one full lead a look (the poll's time is spent)
		expect(poller.executions.map((items) => items.length)).toEqual([1, 1, 1]);
		expect(poller.events().sort()).toEqual(changed.map((lead) => `lead/update ${lead.id}`).sort());
	});

	it.each([false, true])(
		'starts nothing while a look is under way: two Poll Times at once run each change once (durable cursors: %s)',
		async (durableCursors) => {
			const leads = sim.control.seedLeads(30);
			const poller = pollingHost(harness, {}, { durableCursors });
			await poller.activate();
			const fresh = portalLead(sim, 'fresh');
			sim.control.portalUpdateLead(leads[1].id, { value: 3 });
			// the first look's read waits at the service while the next Poll Time comes
			sim.control.setFaults('GET /leads', { held: true });
			const first = poller.poll();
			await poller.poll();
			sim.control.clearFaults();
			await first;
			await poller.poll();
			expect(poller.errors).toEqual([]);
			expect(poller.events().sort()).toEqual(
				[`lead/create ${fresh.id}`, `lead/update ${leads[1].id}`].sort(),
			);
		},
	);
});
