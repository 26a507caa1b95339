import { N8nHarness } from '../harness/harness';
import { DEFAULT_PERSONALITY, startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';
import { leastListRequestsFor, listRequestsFor, routeCount } from '../nodes/partner-leads/fixtures';

/**
 * What reading a whole list costs when the service caps its pages below what the client asks
 * (the cap is not published): every lead once, in the least requests the cap allows plus the
 * one record per request that is read again to notice deletions made meanwhile.
 */
describe.each([7, 30, 100])(
	'Return All over 10,000 leads from a service with pages of at most %i',
	(cap) => {
		let sim: Simulator;
		beforeAll(async () => {
			sim = await startSimulator({
				seed: cap,
				personality: { ...DEFAULT_PERSONALITY, name: `cap-${cap}`, listPageCap: cap },
			});
		});
		afterAll(async () => await sim.close());

		it('returns every lead once, with one request per page of new leads and one that finds the end', async () => {
			sim.control.seedLeads(10_000);
			const run = await new N8nHarness(sim).runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false },
			});
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.json.id)).toEqual(
				sim.control.listLeads().map((lead) => lead.id),
			);
			const requests = routeCount(sim, 'GET /leads');
			expect(requests).toBe(listRequestsFor(sim, 10_000));
			// at most one request more per (cap - 1) leads than the least possible
			expect(requests - leastListRequestsFor(sim, 10_000)).toBeLessThanOrEqual(
				Math.ceil(10_000 / (cap * (cap - 1))) + 1,
			);
		});
	},
);
