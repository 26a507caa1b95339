import { MAX_PARALLEL_REQUESTS } from '../../../nodes/PartnerLeads/actions/common/itemLoop';
import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import {
	createParameters,
	getLeadOfItem,
	jsonOf,
	pairedIndexes,
	people,
} from '../../support/fixtures';
import { startRecordingProxy } from './proxy';

describe('Parallel Requests in the node', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ seed: 16 });
	});
	afterAll(async () => await sim.close());
	afterEach(() => {
		sim.control.clearFaults();
		sim.control.setRateLimit(null);
	});

	/** Creates `count` people through a recording proxy; returns the run and the proxy's figures. */
	async function createThroughProxy(count: number, options: Record<string, number>) {
		const proxy = await startRecordingProxy(sim.url);
		try {
			const harness = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
			const items = people(count);
			const run = await harness.runNode({
				parameters: createParameters(sim, undefined, { options }),
				items,
			});
			return {
				run,
				items,
				maxInFlight: proxy.maxInFlight(),
				rounds: proxy.sequentialRounds(),
				requests: proxy.requests.length,
			};
		} finally {
			await proxy.close();
		}
	}

	it('really has several requests in flight when pinned, and only as many as asked; 1 is one at a time', async () => {
		// the latency keeps each create open long enough for the others to start beside it
		sim.control.setFaults('POST /leads', { latencyMs: 150 });
		const one = await createThroughProxy(16, { parallelRequests: 1 });
		expect(one.run.error).toBeUndefined();
		expect(one.maxInFlight).toBe(1);
		// every request after the one before, the 16 creates included
		expect(one.requests).toBeGreaterThanOrEqual(16);
		expect(one.rounds).toBe(one.requests);
		const eight = await createThroughProxy(16, { parallelRequests: 8 });
		expect(eight.run.error).toBeUndefined();
		expect(eight.maxInFlight).toBe(8);
	});

	it('by default sends several items at once, within the cap, and the output keeps the input order', async () => {
		sim.control.setFaults('POST /leads', { latencyMs: 40 });
		const { run, items, maxInFlight, rounds } = await createThroughProxy(120, {});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((lead) => lead.email)).toEqual(items.map((item) => item.email));
		expect(pairedIndexes(run)).toEqual(items.map((_, n) => n));
		expect(maxInFlight).toBeGreaterThanOrEqual(8);
		expect(maxInFlight).toBeLessThanOrEqual(MAX_PARALLEL_REQUESTS);
		// 120 creates in far fewer round trips than one after the other
		expect(rounds).toBeLessThan(120 / 4);
		expect(sim.control.stats().byRoute['POST /leads']).toBeGreaterThanOrEqual(120);
	});

	it('by default, a service that allows 10 requests a second gets every item once, its Retry-After waited out', async () => {
		sim.control.reset();
		sim.control.setRateLimit(10);
		const { run, items } = await createThroughProxy(50, {});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run).map((lead) => lead.email)).toEqual(items.map((item) => item.email));
		expect(sim.control.listLeads()).toHaveLength(50);
		const statuses = sim.control.stats().statusesByRoute['POST /leads'];
		expect(statuses[201] ?? statuses[200]).toBe(50);
		// the bucket holds 10 (5 s for all at the least): the items past it were answered 429, then waited instead of
		// retrying into the limit: each 429 wave is at most the requests in flight at the time
		expect(statuses[429]).toBeGreaterThan(0);
		expect(statuses[429]).toBeLessThanOrEqual(2 * MAX_PARALLEL_REQUESTS);
	});

	it('by default sends less after 5xx answers; each item gets its lead, or (retries spent) its error in its place', async () => {
		sim.control.setFaults('GET /leads/:id', { rate5xx: 0.3, latencyMs: 20 });
		const ids = sim.control.seedLeads(60).map((lead) => lead.id);
		const proxy = await startRecordingProxy(sim.url);
		try {
			const harness = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
			const run = await harness.runNode({
				parameters: getLeadOfItem({ simplify: false }),
				items: ids.map((id) => ({ id })),
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			// an item whose 4 attempts all met a 5xx is an error item, in its place
			expect(jsonOf(run).map((lead) => lead.id ?? lead.httpCode)).toEqual(
				ids.map((id, n) => (jsonOf(run)[n].error ? jsonOf(run)[n].httpCode : id)),
			);
			expect(jsonOf(run).filter((lead) => lead.id !== undefined).length).toBeGreaterThan(50);
			const statuses = sim.control.stats().statusesByRoute['GET /leads/:id'];
			expect(
				Object.entries(statuses).filter(([status]) => Number(status) >= 500).length,
			).toBeGreaterThan(0);
			// it would add one per answer up to the cap; halved after the first 5xx, it grows slowly
			expect(proxy.maxInFlight()).toBeLessThanOrEqual(MAX_PARALLEL_REQUESTS / 2);
		} finally {
			await proxy.close();
		}
	});
});
