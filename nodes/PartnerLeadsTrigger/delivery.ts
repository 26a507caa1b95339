import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isoTimeMs } from '../shared/isoTime';
import { getLead } from '../shared/leads';
import { isRecord } from '../shared/record';
import { httpCodeOf } from '../shared/transport/errors';
import { rejected, reply } from './delivery/answers';
import type { ClaimedEvent } from './delivery/classify';
import { classifyDelivery, eventScope } from './delivery/classify';
import type { DeliveryOptions } from './delivery/verify';
import { verifyDelivery } from './delivery/verify';
import { runAndAnswer } from './runs/heldDelivery';
import { handOverTestEvent } from './testEvent';

/**
 * Handles one delivery of a lead event: verify, deduplicate, fetch the lead, start one
 * execution. The service retries anything but a 200, so a 200 means "done with this
 * event" and is only sent once the event has been turned into an execution (or needs none).
 */

type LeadFetch = { lead: IDataObject } | { notFound: true } | { failed: string };

async function fetchLead(context: IWebhookFunctions, id: string): Promise<LeadFetch> {
	try {
		const lead = await getLead.call(context, id, {
			// The service redelivers what is not acknowledged: answering at once lets its
			// retries do the waiting instead of holding the delivery open.
			repeatable: false,
			// Stay well inside the service's delivery timeout (10 s): a longer 429 wait would
			// only make it give up on this attempt and send the delivery again anyway.
			rateLimitBudgetMs: 3_000,
		});
		return { lead };
	} catch (error) {
		if (httpCodeOf(error) === '404') return { notFound: true };
		return { failed: (error as Error).message };
	}
}

/** The execution's item: the event, and the lead as fetched (or that it was not found). */
async function eventItem(
	context: IWebhookFunctions,
	{ event, fetchFullLead }: ClaimedEvent,
): Promise<{ json: IDataObject } | { response: IWebhookResponseData }> {
	const json: IDataObject = {
		event: { id: event.id, topic: event.topic, timestamp: event.timestamp },
	};
	if (!fetchFullLead || event.topic === 'lead/delete') return { json };
	const fetched = await fetchLead(context, event.id);
	if ('failed' in fetched) {
		// Not acknowledged and not remembered: the service's retry gets another chance.
		context.logger.warn(
			`Partner Referral Service Trigger: could not fetch lead ${event.id}, asking the service to retry: ${fetched.failed}`,
		);
		return {
			response: rejected(context, {
				status: 503,
				error: 'lead_fetch_failed',
				message: 'The lead could not be fetched; retry later',
			}),
		};
	}
	// Deleted before it could be fetched: the event still happened, so it runs.
	if ('notFound' in fetched) json.leadNotFound = true;
	else json.lead = fetched.lead;
	return { json };
}

/** Process: fetch the lead, record what ran, acknowledge, and start the execution. */
async function processDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
): Promise<IWebhookResponseData> {
	const { event, eventMs, ledger, mayBeRecovered, seen, mark } = claimed;
	const item = await eventItem(context, claimed);
	if ('response' in item) return item.response;
	const { json } = item;
	const updatedMs = isRecord(json.lead) ? isoTimeMs(json.lead.updatedAt) : undefined;
	// The fetched lead tells exactly: not changed since the recovery ran it, nothing to run.
	if (mayBeRecovered && updatedMs !== undefined && ledger?.hasRun(event.id, updatedMs))
		return reply(context, 200, { received: true, duplicate: true });
	// What ran is the fetched lead, as of its updatedAt; without it, only the event time is known.
	const version =
		updatedMs !== undefined ? { ms: updatedMs, exact: true } : { ms: eventMs, exact: false };
	if (claimed.executor) {
		const { executor, mark, maxAgeSeconds, interrupted } = claimed;
		const scope = eventScope(context);
		const held = { event, key: mark.key, json, version, scope, maxAgeSeconds, interrupted };
		return await runAndAnswer(context, executor, held);
	}
	if (event.topic === 'lead/delete') ledger?.recordDeleted(event.id, eventMs);
	else ledger?.recordDelivered(event.id, version);
	seen.remember(mark);
	if (claimed.isTest) {
		handOverTestEvent(context.getWorkflow().id, context.getNode().id, [[{ json }]]);
	}
	// Acknowledged here, before n8n starts the execution: n8n 2.x saves what a webhook changed
	// in static data only when the webhook answered itself (starting the execution first resets
	// the change flag), and this record is what stops the event from running again in another
	// webhook process or after a restart. n8n 1.x answers before starting the execution anyway.
	context.getResponseObject().status(200).json({ received: true });
	return { noWebhookResponse: true, workflowData: [[{ json }]] };
}

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const options = this.getNodeParameter('options', {}) as DeliveryOptions;
	const verified = await verifyDelivery(this, options);
	if ('response' in verified) return verified.response;
	const classified = classifyDelivery(this, verified.event, options);
	if ('response' in classified) return classified.response;
	try {
		return await processDelivery(this, classified.claimed);
	} finally {
		classified.claimed.seen.release(classified.claimed.mark.key);
	}
}
