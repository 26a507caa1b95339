/**
 * A hard kill of n8n in the middle of a burst of lead events (the OOM killer, a power cut):
 * SIGKILL after the 18th of 40 creates, the rest of the burst and two deletes while n8n is down
 * past the service's retries, then n8n started again. Every event runs to the end, none twice
 * unless marked as a re-run, and no lead that did not change runs (test/e2e/crash/burst.ts;
 * `npm run crash` does the same with more kills and prints the counts).
 */
import assert from 'node:assert/strict';

import { crashDuringBurst, describeOutcome, hardKillOf, ISSUE_BURST } from '../crash/burst';
import type { Scenario } from './context';

export const crashDuringBurstScenario: Scenario = {
	name: 'hard kill (SIGKILL) during a burst of creates, updates and deletes: after the restart every event ran, none twice unless marked as a re-run',
	async run(context) {
		const outcome = await crashDuringBurst(
			context,
			{ ...ISSUE_BURST, deletes: 2 },
			hardKillOf(context.n8n),
		);
		process.stdout.write(`      n8n ${context.n8n.version}: ${describeOutcome(outcome)}\n`);
		assert.deepEqual(outcome.lost, [], 'events that never ran');
		assert.deepEqual(outcome.doubled, [], 'events that ran twice without being marked');
		assert.deepEqual(outcome.unexpected, [], 'leads that did not change ran');
	},
};
