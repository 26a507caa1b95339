import { AdaptiveLimiter } from '../../../nodes/PartnerLeads/helpers/adaptiveLimiter';
import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { createParameters, people } from './fixtures';
import { startRecordingProxy } from './proxy';

describe('AdaptiveLimiter', () => {
	it('grants up to its maximum and queues the rest in order', async () => {
		const limiter = new AdaptiveLimiter(2);
		const order: number[] = [];
		await limiter.acquire();
		await limiter.acquire();
		const third = limiter.acquire().then(() => order.push(3));
		const fourth = limiter.acquire().then(() => order.push(4));
		await Promise.resolve();
		expect(order).toEqual([]);
		limiter.release();
		await third;
		expect(order).toEqual([3]);
		limiter.release();
		await fourth;
		expect(order).toEqual([3, 4]);
	});

	it('halves on a 429 once per wave, and grows back by one after a run of successes', () => {
		const limiter = new AdaptiveLimiter(16, 4);
		limiter.onRateLimited(0);
		expect(limiter.concurrency).toBe(8);
		limiter.onRateLimited(0); // the same wave of requests: no second cut
		expect(limiter.concurrency).toBe(8);
		limiter.onRateLimited(1);
		expect(limiter.concurrency).toBe(4);
		for (let n = 0; n < 4; n++) limiter.onSuccess();
		expect(limiter.concurrency).toBe(5);
		for (let n = 0; n < 100; n++) limiter.onSuccess();
		expect(limiter.concurrency).toBe(16);
		for (let generation = 2; generation < 10; generation++) limiter.onRateLimited(generation);
		expect(limiter.concurrency).toBe(1);
	});
});

describe('Parallel Requests in the node', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ seed: 16 });
	});
	afterAll(async () => await sim.close());

	it('really has several requests in flight, and only as many as asked', async () => {
		const inFlightWith = async (parallelRequests: number) => {
			const proxy = await startRecordingProxy(sim.url);
			try {
				const harness = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
				const run = await harness.runNode({ parameters: createParameters(sim, undefined, { options: { parallelRequests } }), items: people(16) });
				expect(run.error).toBeUndefined();
				expect(run.items).toHaveLength(16);
				return proxy.maxInFlight();
			} finally {
				await proxy.close();
			}
		};
		// the latency keeps each create open long enough for the others to start beside it
		sim.control.setFaults('POST /leads', { latencyMs: 40 });
		expect(await inFlightWith(1)).toBe(1);
		expect(await inFlightWith(8)).toBe(8);
	});
});
