import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { pollingHost, portalLead } from './helpers';

/**
 * A portal larger than one look's budget: the list is read in slices, a sweep over several
 * looks, each within List Requests per Minute (issue 65). Time passes by moving the clock a
 * minute per look (the simulator's clock moves with it), so the budget refills as in n8n.
 */

const REQUESTS_PER_MINUTE = 3;
const PORTAL = 1_000;

let sim: Simulator;
let harness: N8nHarness;
let clockAheadMs = 0;
const realNow = Date.now.bind(Date);

function aMinuteLater(): void {
	clockAheadMs += 60_000;
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

/** Looks enough for two whole sweeps of the portal at this service's page size. */
function looksForTwoSweeps(leads: number): number {
	const pageSize = Math.min(sim.personality.listPageCap ?? 100, 100);
	return 2 * (Math.ceil(leads / (pageSize - 1) / REQUESTS_PER_MINUTE) + 2);
}

describe('PartnerLeadsPollingTrigger on a portal larger than a look', () => {
	beforeEach(async () => {
		clockAheadMs = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => realNow() + clockAheadMs);
		sim = await startSimulator({ seed: 65 });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => {
		jest.restoreAllMocks();
		await sim.close();
	});

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
			const poller = slicedHost(durableCursors);
			await poller.activate();
			expect(listRequests()).toBeLessThanOrEqual(REQUESTS_PER_MINUTE);
			// changes while the first sweep (the baseline) reads on: one in a slice read, one not yet
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
