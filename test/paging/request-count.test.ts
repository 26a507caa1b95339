import { N8nHarness } from '../harness/harness';
import { DEFAULT_PERSONALITY, startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';
import { READ_AHEAD_PAGES } from '../../nodes/shared/transport/paging';
import {
	expectListRequests,
	leastListRequestsFor,
	listRequestsFor,
	routeCount,
} from '../support/fixtures';
import { startRecordingProxy } from '../nodes/partner-leads/proxy';

/**
 * What reading a whole list costs when the service caps its pages below what the client asks
 * (the cap is not published): every lead once, in the least requests the cap allows plus the
 * one record per request that is read again to notice deletions made meanwhile, and the pages
 * read ahead past the end. Pages are read ahead, so the round trips one after the other are
 * far fewer than the requests.
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

		it('returns every lead once, in one request per page of new leads, a few read ahead past the end', async () => {
			sim.control.seedLeads(10_000);
			const run = await new N8nHarness(sim).runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false },
			});
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.json.id)).toEqual(
				sim.control.listLeads().map((lead) => lead.id),
			);
			const requests = routeCount(sim, 'GET /leads');
			expectListRequests(requests, listRequestsFor(sim, 10_000));
			// at most one request more per (cap - 1) leads than the least possible, and the read-ahead
			expect(requests - leastListRequestsFor(sim, 10_000)).toBeLessThanOrEqual(
				Math.ceil(10_000 / (cap * (cap - 1))) + 1 + READ_AHEAD_PAGES,
			);
		}, 90_000); // pages of 7: about 1,700 requests, on a shared machine

		it('reads pages ahead: the round trips one after the other are a fraction of the requests', async () => {
			sim.control.reset();
			sim.control.seedLeads(cap === 7 ? 1_000 : 10_000);
			// the latency keeps each page's request open while the ones read ahead are sent
			sim.control.setFaults('GET /leads', { latencyMs: 50 });
			const proxy = await startRecordingProxy(sim.url);
			try {
				const harness = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
				const run = await harness.runNode({
					parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false },
				});
				expect(run.error).toBeUndefined();
				const ids = run.items.map((item) => item.json.id);
				expect(ids).toEqual(sim.control.listLeads().map((lead) => lead.id));
				const requests = routeCount(sim, 'GET /leads');
				expect(proxy.maxInFlight()).toBeGreaterThan(1);
				expect(proxy.maxInFlight()).toBeLessThanOrEqual(READ_AHEAD_PAGES);
				// one after the other, they would be as many as the requests
				expect(proxy.sequentialRounds()).toBeLessThanOrEqual(requests / 2);
			} finally {
				await proxy.close();
				sim.control.clearFaults();
			}
		});
	},
);
