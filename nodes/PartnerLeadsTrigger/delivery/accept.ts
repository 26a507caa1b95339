import { type IWebhookFunctions, type IWebhookResponseData, sleep } from 'n8n-workflow';

import type { RunExecutor } from '../runs/executor';
import type { RunOutcome } from '../runs/places';
import { MAX_IN_FLIGHT } from '../state/runsInFlight';
import type { ClaimedEvent } from './classify';
import { rejected, reply } from './answers';

/**
 * A delivery where `trigger()` runs becomes a run in flight (runs/queue.ts), waited for up to
 * DELIVERY_HOLD.ms if it starts at once. n8n saves static data before the 200, so it is not lost.
 */

/** How long a delivery waits for a run that started at once: below senders' timeouts. */
export const DELIVERY_HOLD = { ms: 5_000 };

const BUSY = {
	status: 503,
	error: 'busy',
	message: 'Too many events of this trigger are waiting to run; retry later',
};

async function withinHold(run: Promise<RunOutcome>): Promise<RunOutcome | 'stillRunning'> {
	const stop = new AbortController();
	const expired = sleep(DELIVERY_HOLD.ms, stop.signal).then(
		() => 'stillRunning' as const,
		() => 'stillRunning' as const,
	);
	try {
		return await Promise.race([run, expired]);
	} finally {
		stop.abort();
	}
}

/** Waits for the delivery's run; the last held delivery's answer saves it (queue.whileHeld). */
async function heldAnswer(
	context: IWebhookFunctions,
	executor: RunExecutor,
	underWay: Promise<RunOutcome>,
): Promise<IWebhookResponseData | undefined> {
	const { outcome, othersHeld } = await executor.queue.whileHeld(withinHold(underWay));
	return outcome === 'finished' && othersHeld ? reply(context, 200, { received: true }) : undefined;
}

export async function acceptDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
	executor: RunExecutor,
): Promise<IWebhookResponseData> {
	const { run, mark } = claimed;
	if (!claimed.interrupted) {
		const records = executor.records();
		if (records.inFlight.size >= MAX_IN_FLIGHT) return rejected(context, BUSY);
		records.queued(run, undefined);
		const underWay = executor.queue.takeUpNow(run);
		// Its emit saves it in flight: until then no 200 was given, and the service retries.
		const answered = underWay && (await heldAnswer(context, executor, underWay));
		if (answered) return answered;
		// Otherwise it is taken up once n8n has saved it with this answer.
		if (!underWay)
			context.getResponseObject().once('close', executor.queue.holdUntilSaved(mark.key));
	}
	claimed.records?.writeBack();
	return { webhookResponse: { received: true } };
}
