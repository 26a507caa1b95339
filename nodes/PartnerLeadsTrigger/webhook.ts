import { type IWebhookFunctions, type IWebhookResponseData, sleep } from 'n8n-workflow';

import { rejected, reply } from './delivery/answers';
import { type ClaimedEvent, classifyDelivery } from './delivery/classify';
import { type DeliveryOptions, verifyDelivery } from './delivery/verify';
import { handOverTestEvent } from './delivery/testEvent';
import type { RunExecutor } from './runs/executor';
import type { RunOutcome } from './runs/places';
import { prepareRun } from './runs/prepare';

/**
 * One delivery: verify, deduplicate, then accept for `trigger()` or run from here. The service
 * retries all but a 200, so a 200 goes out only once the event is saved to run (or needs none).
 */

/** How long a delivery waits for a run that started at once: below senders' timeouts. */
const DELIVERY_HOLD_MS = 5_000;

const BUSY = {
	status: 503,
	error: 'busy',
	message: 'Too many events of this trigger are waiting to run; retry later',
};

async function withinHold(run: Promise<RunOutcome>): Promise<RunOutcome | 'stillRunning'> {
	const stop = new AbortController();
	const expired = sleep(DELIVERY_HOLD_MS, stop.signal).then(
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

/**
 * Accept, where `trigger()` runs: the event becomes a run in flight (runs/queue.ts), waited for
 * if it starts at once. n8n saves static data before the 200, so it is not lost.
 */
async function acceptDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
	executor: RunExecutor,
): Promise<IWebhookResponseData> {
	const { run } = claimed;
	if (claimed.known !== 'interrupted') {
		const records = executor.records();
		if (records.isFull()) return rejected(context, BUSY);
		records.queued(run, undefined);
		const underWay = executor.queue.takeUpNow(run);
		// Its emit saves it in flight: until then no 200 was given, and the service retries.
		const answered = underWay && (await heldAnswer(context, executor, underWay));
		if (answered) return answered;
		// Otherwise it is taken up once n8n has saved it with this answer.
		if (!underWay)
			context.getResponseObject().once('close', executor.queue.holdUntilSaved(run.key));
	}
	claimed.records?.writeBack();
	return { webhookResponse: { received: true } };
}

/** Where `trigger()` does not run (test event, queue-mode webhook process): run from here. */
async function processDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
): Promise<IWebhookResponseData> {
	const { records, run } = claimed;
	let prepared;
	try {
		prepared = await prepareRun(context, run, {
			records,
			// Answer fast and let the service's retries wait: a 429 wait near its 10 s timeout would
			// only make it send the delivery again.
			read: { repeatable: false, rateLimitBudgetMs: 3_000 },
		});
	} catch (error) {
		// Not acknowledged and not remembered: the service's retry gets another chance.
		context.logger.warn(
			`Partner Referral Service Trigger: could not fetch lead ${run.leadId}, asking the service to retry: ${(error as Error).message}`,
		);
		return rejected(context, {
			status: 503,
			error: 'lead_fetch_failed',
			message: 'The lead could not be fetched; retry later',
		});
	}
	if (!records) {
		if (!prepared.start) return reply(context, 200, { received: true, started: false });
		handOverTestEvent(context.getWorkflow().id, context.getNode().id, [[{ json: prepared.json }]]);
	} else {
		records.ranFromWebhook(prepared);
		if (!prepared.start) return { webhookResponse: { received: true, started: false } };
	}
	// Answered before the execution starts: n8n 2.x saves a webhook's static data only when the
	// webhook answered itself, and this record stops the event running again after a restart.
	context.getResponseObject().status(200).json({ received: true });
	return { noWebhookResponse: true, workflowData: [[{ json: prepared.json }]] };
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const options = this.getNodeParameter('options', {}) as DeliveryOptions;
	const verified = await verifyDelivery(this, options);
	if ('response' in verified) return verified.response;
	const classified = classifyDelivery(this, verified.event);
	if ('response' in classified) return classified.response;
	const { executor } = classified.claimed;
	try {
		if (executor) return await acceptDelivery(this, classified.claimed, executor);
		return await processDelivery(this, classified.claimed);
	} finally {
		classified.claimed.release();
	}
}
