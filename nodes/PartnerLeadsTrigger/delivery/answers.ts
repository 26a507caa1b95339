import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import type { LeadTopic } from '../../shared/topics';

export type Rejection = { status: number; error: string; message: string };

/** Answers the request itself; n8n then starts no execution. */
export function reply(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

export function rejected(context: IWebhookFunctions, rejection: Rejection): IWebhookResponseData {
	return reply(context, rejection.status, { error: rejection.error, message: rejection.message });
}

const IGNORED_REASONS = {
	tooOld: 'the event is older than Ignore Events Older Than allows',
	inFuture: 'the event time is more than 5 minutes in the future',
	unreadable: 'the event time is not an ISO 8601 date',
	beyondMemory:
		'the event is older than the oldest event the trigger still remembers (more events arrived within Ignore Events Older Than than it can remember)',
} as const;

/** An event outside the window may be a replay: nothing runs, but 200, as retries fail too. */
export function ignoredAsReplay(
	context: IWebhookFunctions,
	event: LeadEvent,
	reason: keyof typeof IGNORED_REASONS,
): IWebhookResponseData {
	// No id or time: the log says why, without the event's values.
	context.logger.warn(
		`Partner Referral Service Trigger ignored a signed delivery as a possible replay: ${IGNORED_REASONS[reason]}`,
		{ node: context.getNode().name, topic: event.topic, reason },
	);
	return reply(context, 200, { received: true, ignored: 'possible replay', reason });
}

/** What makes a signed body no lead event; the answer and the log name it, never the body's values. */
const MALFORMED_REASONS = {
	notJson: 'the body is not JSON',
	notAnObject: 'the body is not a JSON object',
	id: 'its id is missing, not text, or too long',
	timestamp: 'its timestamp is missing, not text, or too long',
	topic: 'its topic is none of lead/create, lead/update and lead/delete',
	otherTopic: 'its topic is not the one of the subscription that signed it',
} as const;

export type MalformedReason = keyof typeof MALFORMED_REASONS;

/**
 * A body the service signed (v2 covers the exact bytes) that is no lead event: nothing runs,
 * and 200, as every retry would carry the same bytes; a 4xx would only be sent again.
 */
export function ignoredAsMalformed(
	context: IWebhookFunctions,
	signedFor: LeadTopic,
	reason: MalformedReason,
): IWebhookResponseData {
	const what = MALFORMED_REASONS[reason];
	context.logger.warn(
		`Partner Referral Service Trigger ignored a delivery signed by its ${signedFor} subscription that is not a lead event: ${what}. It was answered 200 and starts nothing: the service would send the same bytes again.`,
		{ node: context.getNode().name, signedFor, reason },
	);
	return reply(context, 200, {
		received: true,
		ignored: 'not a lead event',
		reason,
		message: `Signed by this trigger's ${signedFor} subscription, but not a lead event: ${what}`,
	});
}
