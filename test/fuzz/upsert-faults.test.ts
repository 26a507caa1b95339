import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../harness/harness';
import { startSimulator } from '../simulator';
import type { RouteFaults, Simulator } from '../simulator/types';
import { pushParameters } from '../support/fixtures';
import { FUZZ_SEED, runs } from './arbitraries';

/**
 * Lead > Create or Update under random faults on lead creation (5xx before or after the
 * effect, dropped connections, 429s), with match values repeated within and across runs
 * and in other letter cases: a lead is never created twice for one e-mail address, and
 * every item ends as a lead or as a clear error.
 */

const POOL = ['ada', 'grace', 'alan', 'edsger', 'barbara'];

describe('fuzz: Create or Update never creates a duplicate, whatever the faults', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 17 });
	});
	afterAll(async () => {
		await sim.close();
	});

	const faultsArb: fc.Arbitrary<RouteFaults> = fc.record({
		rate5xx: fc.constantFrom(0, 0.2, 0.5),
		rate5xxAfterEffect: fc.constantFrom(0, 0.3, 0.6, 1),
		dropRate: fc.constantFrom(0, 0.2),
		rate429: fc.constantFrom(0, 0.3),
		retryAfterSeconds: fc.constant(0),
	});

	const batchArb = fc.array(
		fc.record({ who: fc.constantFrom(...POOL), upper: fc.boolean(), value: fc.nat(1000) }),
		{ minLength: 1, maxLength: 8 },
	);

	it('holds at most one lead per e-mail address after any sequence of runs', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.tuple(faultsArb, batchArb), { minLength: 1, maxLength: 3 }),
				fc.constantFrom(1, 4),
				async (runPlan, parallelRequests) => {
					sim.control.reset();
					harness = new N8nHarness(sim);
					for (const [faults, batch] of runPlan) {
						sim.control.setFaults('POST /leads', faults);
						const items: IDataObject[] = batch.map(({ who, upper, value }) => {
							const email = `${who}@fuzz.example.com`;
							return {
								firstName: who,
								lastName: 'Fuzz',
								email: upper ? email.toUpperCase() : email,
								value,
							};
						});
						const run = await harness.runNode({
							parameters: pushParameters(sim, 'upsert', parallelRequests),
							items,
							continueOnFail: true,
						});
						expect(run.error).toBeUndefined();
						expect(run.items).toHaveLength(items.length);
						for (const item of run.items) {
							if (item.json.error !== undefined) {
								expect(typeof item.json.error).toBe('string');
								expect(String(item.json.description ?? '')).not.toBe('');
							} else {
								expect(['created', 'updated']).toContain(item.json._action);
							}
						}
					}
					sim.control.clearFaults();
					const counts = new Map<string, number>();
					for (const lead of sim.control.listLeads()) {
						const email = String(lead.email).toLowerCase();
						counts.set(email, (counts.get(email) ?? 0) + 1);
					}
					expect([...counts].filter(([, count]) => count > 1)).toEqual([]);
				},
			),
			{ seed: FUZZ_SEED + 3, numRuns: runs(40) },
		);
	});
});
