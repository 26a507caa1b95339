import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { rejected, reply } from './delivery/answers';
import { type ClaimedEvent, classifyDelivery } from './delivery/classify';
import { type DeliveryOptions, verifyDelivery } from './delivery/verify';
import { acceptDelivery } from './delivery/accept';
import { handOverTestEvent } from './delivery/testEvent';
import { keepWatchedValues, prepareRun } from './runs/prepare';

/**
 * One delivery: verify, deduplicate, then accept for `trigger()` or run from here. The service
 * retries all but a 200, so a 200 goes out only once the event is saved to run (or needs none).
 */

/** Where `trigger()` does not run (test event, queue-mode webhook process): run from here. */
async function processDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
): Promise<IWebhookResponseData> {
	const { event, eventMs, records, seen, mark, run } = claimed;
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
			`Partner Referral Service Trigger: could not fetch lead ${event.id}, asking the service to retry: ${(error as Error).message}`,
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
		keepWatchedValues(records.watched, prepared);
		if (event.topic === 'lead/delete') records.ledger.recordDeleted(event.id, eventMs);
		else records.ledger.recordDelivered(event.id, prepared.version);
		seen.remember(mark);
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
	const classified = classifyDelivery(this, verified.event, options);
	if ('response' in classified) return classified.response;
	const { executor } = classified.claimed;
	try {
		if (executor) return await acceptDelivery(this, classified.claimed, executor);
		return await processDelivery(this, classified.claimed);
	} finally {
		classified.claimed.seen.release(classified.claimed.mark.key);
	}
}
