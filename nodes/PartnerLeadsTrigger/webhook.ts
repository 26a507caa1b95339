import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { LeadVersion } from '../shared/changes/versions';
import { withChanges } from '../shared/changes/watchedFields';
import { isoTimeMs } from '../shared/isoTime';
import { leadItem, readLeadFor } from '../shared/leadItem';
import { isRecord } from '../shared/transport/record';
import { rejected, reply } from './delivery/answers';
import type { ClaimedEvent } from './delivery/classify';
import { classifyDelivery } from './delivery/classify';
import type { DeliveryOptions } from './delivery/verify';
import { verifyDelivery } from './delivery/verify';
import { acceptDelivery } from './delivery/accept';
import { nodeScope } from '../shared/state/scope';
import { handOverTestEvent } from './delivery/testEvent';
import { WatchedLeads } from './state/watchedLeads';
import type { WatchedOutcome } from './runs/watchedOutcome';
import { applyWatchedOutcome, watchedOutcome } from './runs/watchedOutcome';

/**
 * Handles one delivery of a lead event: verify, deduplicate, then either accept it for
 * `trigger()` to run (delivery/accept.ts, where `trigger()` runs in this process) or fetch the
 * lead and start one execution from here. The service retries anything but a 200, so a 200
 * means "done with this event" and is only sent once the event is saved to run (or needs none).
 */

/** The execution's item: the event, and the lead as fetched (or that it was not found). */
async function eventItem(
	context: IWebhookFunctions,
	{ event, fetchFullLead }: ClaimedEvent,
): Promise<{ json: IDataObject } | { response: IWebhookResponseData }> {
	try {
		const read = await readLeadFor(context, event, fetchFullLead, {
			// The service redelivers what is not acknowledged: answering at once lets its
			// retries do the waiting instead of holding the delivery open.
			repeatable: false,
			// Stay well inside the service's delivery timeout (10 s): a longer 429 wait would
			// only make it give up on this attempt and send the delivery again anyway.
			rateLimitBudgetMs: 3_000,
		});
		return { json: leadItem(event, read) };
	} catch (error) {
		// Not acknowledged and not remembered: the service's retry gets another chance.
		context.logger.warn(
			`Partner Referral Service Trigger: could not fetch lead ${event.id}, asking the service to retry: ${(error as Error).message}`,
		);
		return {
			response: rejected(context, {
				status: 503,
				error: 'lead_fetch_failed',
				message: 'The lead could not be fetched; retry later',
			}),
		};
	}
}

/** The watched values a delivery compares with; a test event reads those stored, keeps nothing. */
function watchedLeadsFor(context: IWebhookFunctions, claimed: ClaimedEvent): WatchedLeads {
	const scope = claimed.isTest ? undefined : nodeScope(context);
	return new WatchedLeads(context.getWorkflowStaticData('node'), scope, claimed.watch.fields);
}

/**
 * An event that starts nothing (no watched field changed, or not to a chosen value; a creation
 * seen only for its values): its values are kept and it counts as run, so that neither the
 * service's retry nor a recovery judges it again. n8n saves static data, then answers.
 */
function keptWithoutRun(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
	version: LeadVersion,
	watched: { leads: WatchedLeads; outcome: WatchedOutcome },
): IWebhookResponseData {
	if (claimed.isTest) return reply(context, 200, { received: true, started: false });
	applyWatchedOutcome(watched.leads, claimed.event.id, watched.outcome);
	claimed.ledger?.recordDelivered(claimed.event.id, version);
	claimed.seen.remember(claimed.mark);
	return { webhookResponse: { received: true, started: false } };
}

/** Fields to Watch: whether the event starts a run, with which changes (in the item). */
async function watchedDelivery(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
	json: IDataObject,
): Promise<{ leads: WatchedLeads; outcome: WatchedOutcome }> {
	const leads = watchedLeadsFor(context, claimed);
	const outcome = await watchedOutcome(context, leads, claimed.watch, {
		leadId: claimed.event.id,
		topic: claimed.event.topic,
		lead: isRecord(json.lead) ? json.lead : undefined,
		fallbackMs: claimed.eventMs,
		selected: claimed.selected,
		test: claimed.isTest,
	});
	if (outcome.start && outcome.changes) withChanges(json, outcome.changes);
	return { leads, outcome };
}

/**
 * Process where `trigger()` does not run (a test event; a queue-mode webhook process): fetch
 * the lead, record what ran, acknowledge, and start the execution from the webhook.
 */
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
	const watched = await watchedDelivery(context, claimed, json);
	if (!watched.outcome.start) return keptWithoutRun(context, claimed, version, watched);
	if (!claimed.isTest) applyWatchedOutcome(watched.leads, event.id, watched.outcome);
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
	const { executor } = classified.claimed;
	try {
		if (executor) return await acceptDelivery(this, classified.claimed, executor);
		return await processDelivery(this, classified.claimed);
	} finally {
		classified.claimed.seen.release(classified.claimed.mark.key);
	}
}
