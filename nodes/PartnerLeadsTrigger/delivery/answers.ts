import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';

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
