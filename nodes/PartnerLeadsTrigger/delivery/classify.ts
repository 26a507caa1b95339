import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import {
	fetchesFullLead,
	observedTopics,
	watchedFieldIds,
} from '../../shared/changes/watchedFields';
import { isoTimeMs } from '../../shared/isoTime';
import { selectedTopics } from '../../shared/topics';
import { eventMark, judgeEventAge, maxEventAgeSeconds, SeenEvents } from '../state/seenEvents';
import type { LeadEvent } from '../../shared/leadItem';
import { type RunExecutor, runExecutorFor } from '../runs/executor';
import type { InFlightRun } from '../state/runsInFlight';
import { type RunRecords, openRunRecords } from '../state/records';
import { nodeScope } from '../../shared/state/nodeStore';
import { type Rejection, ignoredAsReplay, rejected, reply } from './answers';
import type { DeliveryOptions } from './verify';

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
	if (executor && records?.inFlight.storedIsStale) {
		records.writeBack();
		return { webhookResponse: body };
	}
	return reply(context, 200, body);
}

/** An authentic event in the window, not seen before, and claimed by this delivery. */
export interface ClaimedEvent {
	event: LeadEvent;
	/** the event time, from the ISO timestamp where it has milliseconds */
	eventMs: number;
	/** the node's production records, opened once for this delivery; none for test deliveries */
	records?: RunRecords;
	seen: SeenEvents;
	mark: ReturnType<typeof eventMark>;
	/** the event as the run it asks for: a delivered event's first run */
	run: InFlightRun;
	/** the trigger() of this node when it runs in this process: the event runs through it */
	executor?: RunExecutor;
	/** its run was in flight when n8n stopped: it runs again (marked) unless it finished since */
	interrupted: boolean;
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
	options: DeliveryOptions,
): { claimed: ClaimedEvent } | { response: IWebhookResponseData } {
	// Authentic, but for a topic no longer selected (a subscription from before the
	// selection changed): acknowledged, so the service stops retrying what nobody wants.
	if (!topicHandled(context, event)) {
		return { response: reply(context, 200, { received: true, ignored: 'topic not selected' }) };
	}
	const maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
	const age = judgeEventAge(event.timestamp, maxAgeSeconds);
	if (age.verdict !== 'inWindow') return { response: ignoredAsReplay(context, event, age.verdict) };
	const isTest = context.getMode() === 'manual';
	const eventMs = isoTimeMs(event.timestamp) ?? age.timeSeconds * 1000;
	// whose events a memory holds: one trigger node of one workflow, its test URL apart
	const scope = nodeScope(context, isTest ? 'test' : 'production');
	const nodeData = context.getWorkflowStaticData('node');
	const records = isTest ? undefined : openRunRecords(context);
	const mark = eventMark(event, age.timeSeconds);
	// a test delivery is known only to the test URL's events seen
	const seen = records?.seen ?? new SeenEvents(nodeData, scope, { maxAgeSeconds });
	const recalled = records
		? records.recall(event, mark, eventMs, fetchesFullLead(context))
		: seen.recall(mark);
	if (recalled === 'ranByRecovery')
		return { response: reply(context, 200, { received: true, duplicate: true }) };
	const executor = isTest ? undefined : runExecutorFor(scope);
	const interrupted = recalled === 'interrupted';
	// Its run was under way when n8n stopped: the trigger runs it again, wherever it runs.
	if (interrupted && !executor) return { response: rejected(context, INTERRUPTED) };
	if (recalled === 'seen') return { response: duplicate(context, executor, records) };
	if (recalled === 'forgotten') {
		return { response: ignoredAsReplay(context, event, 'beyondMemory') };
	}
	if (!seen.claim(mark.key)) {
		return {
			response: rejected(context, {
				status: 503,
				error: 'in_progress',
				message: 'Another delivery of this event is being processed; retry later',
			}),
		};
	}
	const run: InFlightRun = {
		...{ key: mark.key, topic: event.topic, leadId: event.id, timestamp: event.timestamp },
		...{ attempts: 0, origin: 'delivered' },
	};
	return { claimed: { event, eventMs, records, seen, mark, run, executor, interrupted } };
}
