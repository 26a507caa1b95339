import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { observedTopics, watchedFieldIds } from '../../shared/changes/watchedFields';
import { selectedTopics } from '../../shared/topics';
import type { LeadEvent } from '../../shared/leadItem';
import { type RunExecutor, runExecutorFor } from '../runs/executor';
import { type RecalledEvent, type RunRecords, recallDelivery } from '../state/records';
import { type Rejection, ignoredAsReplay, rejected, reply } from './answers';

const INTERRUPTED: Rejection = {
	status: 503,
	error: 'in_progress',
	message:
		'The run of this event was interrupted; it runs again once the trigger is back; retry later',
};

/** A delivery of an event that ran; its answer also saves runs finished since the last save. */
function duplicate(
	context: IWebhookFunctions,
	executor: RunExecutor | undefined,
	records: RunRecords | undefined,
): IWebhookResponseData {
	const body = { received: true, duplicate: true };
	if (executor && records?.savesPending) {
		records.writeBack();
		return { webhookResponse: body };
	}
	return reply(context, 200, body);
}

/**
 * An authentic event in the window, not seen before, claimed by this delivery: its run with the
 * delivery's records (its run again, if it was interrupted: `known` says so).
 */
export interface ClaimedEvent extends RecalledEvent {
	/** the trigger() of this node when it runs in this process: the event runs through it */
	executor?: RunExecutor;
}

/** A chosen topic, or a creation seen only to keep a new lead's watched values (not in tests). */
function topicHandled(context: IWebhookFunctions, event: LeadEvent): boolean {
	const topics = selectedTopics(context.getNodeParameter('events', []));
	if (topics.includes(event.topic)) return true;
	if (context.getMode() === 'manual') return false;
	const watching = watchedFieldIds(context).length > 0;
	return observedTopics(topics, watching).includes(event.topic);
}

/** Classify: the answer for a delivery that runs nothing (replay, duplicate...), or its claim. */
export function classifyDelivery(
	context: IWebhookFunctions,
	event: LeadEvent,
): { claimed: ClaimedEvent } | { response: IWebhookResponseData } {
	// Authentic, but for a topic no longer selected (a subscription from before the
	// selection changed): acknowledged, so the service stops retrying what nobody wants.
	if (!topicHandled(context, event)) {
		return { response: reply(context, 200, { received: true, ignored: 'topic not selected' }) };
	}
	const recalled = recallDelivery(context, event);
	if (!('run' in recalled)) return { response: ignoredAsReplay(context, event, recalled.known) };
	const { known, records } = recalled;
	if (known === 'ranByRecovery')
		return { response: reply(context, 200, { received: true, duplicate: true }) };
	const executor = records && runExecutorFor(records.scope);
	// Its run was under way when n8n stopped: the trigger runs it again, wherever it runs.
	if (known === 'interrupted' && !executor) return { response: rejected(context, INTERRUPTED) };
	if (known === 'seen') return { response: duplicate(context, executor, records) };
	if (known === 'forgotten') {
		return { response: ignoredAsReplay(context, event, 'beyondMemory') };
	}
	if (!recalled.claim()) {
		return {
			response: rejected(context, {
				status: 503,
				error: 'in_progress',
				message: 'Another delivery of this event is being processed; retry later',
			}),
		};
	}
	return { claimed: { ...recalled, executor } };
}
