/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Hard kills in queue mode during a burst of lead events (test/e2e/crash/burst.ts): a webhook
 * process killed (SIGKILL) while deliveries reach it, and the main process (the leader, which
 * runs the trigger's recovery) killed during another burst. The counts go to the report;
 * no event may run twice unmarked and no unchanged lead may run. What a killed webhook process
 * had answered but not yet queued is counted as lost (docs/design/exactly-once.md, "The windows that remain").
 */
import assert from 'node:assert/strict';

import type { BurstOutcome, Interruption } from '../crash/burst';
import { crashDuringBurst, describeOutcome, ISSUE_BURST } from '../crash/burst';
import type { N8nProcess } from '../lib/queue-mode/cluster';
import type { QueueContext, QueueScenario } from './context';

export function killedQueueProcess(
	process: N8nProcess,
	afterRestart?: () => Promise<void>,
): Interruption {
	return async (whileDown) => {
		await process.kill();
		await whileDown();
		await process.restart();
		await afterRestart?.();
	};
}

function report(context: QueueContext, what: string, outcome: BurstOutcome): void {
	context.figures.set(what, describeOutcome(outcome));
	assert.deepEqual(outcome.doubled, [], `${what}: events that ran twice without being marked`);
	assert.deepEqual(outcome.unexpected, [], `${what}: leads that did not change ran`);
}

export const webhookProcessKilledDuringBurst: QueueScenario = {
	name: 'queue mode: a webhook process killed (SIGKILL) during a burst: nothing runs twice unmarked, what it had answered is counted',
	async run(context) {
		const [victim] = context.cluster.webhooks;
		const outcome = await crashDuringBurst(
			context,
			{ ...ISSUE_BURST, deletes: 2 },
			killedQueueProcess(victim!),
			true,
		);
		report(context, 'webhook process killed during a burst', outcome);
	},
};

export const leaderKilledDuringBurst: QueueScenario = {
	name: 'queue mode: the main process (leader) killed during a burst: every event runs, nothing twice unmarked',
	async run(context) {
		const outcome = await crashDuringBurst(
			context,
			{ ...ISSUE_BURST, deletes: 2 },
			// a new session on the restarted main process, as the other restart scenarios do
			killedQueueProcess(context.cluster.main, async () => {
				await context.rest
					.login(context.owner.email, context.owner.password)
					.catch(() => undefined);
			}),
		);
		report(context, 'main process (leader) killed during a burst', outcome);
		assert.deepEqual(outcome.lost, [], 'events that never ran');
	},
};
