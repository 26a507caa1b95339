import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { createParameters, people } from './fixtures';
import { startRecordingProxy } from './proxy';

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
				const run = await harness.runNode({
					parameters: createParameters(sim, undefined, { options: { parallelRequests } }),
					items: people(16),
				});
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
