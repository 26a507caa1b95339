import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { WatchSettings } from '../shared/changes/watchVerdict';
import {
	fetchesFullLead,
	observedTopics,
	watchSettingsOf,
	withChanges,
} from '../shared/changes/watchedFields';
import { isoTimeMs } from '../shared/isoTime';
import { getLead } from '../shared/leads';
import { isRecord } from '../shared/record';
import { selectedTopics } from '../shared/topics';
import { httpCodeOf } from '../shared/transport/errors';
import { eventMark, SeenEvents } from './deduplication';
import { judgeEventAge, maxEventAgeSeconds } from './eventAge';
import type { LeadEvent } from './events';
import { parseLeadEvent } from './events';
import {
	singleHeaderValue,
	LEGACY_SIGNATURE_HEADER,
	V2_SIGNATURE_HEADER,
	verifyLegacySignature,
	verifyV2Signature,
} from './signature';
import { freshSecretBox, rememberedSecretBox } from './secretBox';
import { readStoredSubscriptions, storedEntries, unreadableIds } from './state';
import { RecoveryLedger } from './recovery/ledger';
import { productionScope } from './scope';
import { handOverTestEvent } from './testEvent';
import type { LeadVersion } from '../shared/changes/versions';
import type { RunExecutor } from './runs/executor';
import { runExecutorFor } from './runs/executor';
import { runAndAnswer } from './runs/heldDelivery';
import { RunsInFlight } from './runs/inFlight';
import { RunRecords } from './runs/records';
import { unpackKeptLead, WatchedLeads } from './watchedLeads';
import type { WatchedOutcome } from './watchedOutcome';
import { applyWatchedOutcome, watchedOutcome } from './watchedOutcome';

/**
 * Handles one delivery of a lead event: verify, deduplicate, fetch the lead, start one
 * execution. The service retries anything but a 200, so a 200 means "done with this
 * event" and is only sent once the event has been turned into an execution (or needs none).
 */

type Rejection = { status: number; error: string; message: string };

/** Answers the request itself; n8n then starts no execution. */
function reply(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

function rejected(context: IWebhookFunctions, rejection: Rejection): IWebhookResponseData {
	return reply(context, rejection.status, { error: rejection.error, message: rejection.message });
}

const UNVERIFIED: Rejection = {
	status: 401,
	error: 'invalid_signature',
	message: 'The delivery is not signed by a subscription of this trigger',
};

/** The event a valid signature vouches for, if any, and whether some stored secrets could not be opened. */
type Authentication = { event?: LeadEvent; unreadableSecrets: boolean };

async function authenticate(
	context: IWebhookFunctions,
	acceptLegacy: boolean,
): Promise<Authentication> {
	const request = context.getRequestObject();
	const rawBody = (request as { rawBody?: unknown }).rawBody;
	if (!Buffer.isBuffer(rawBody) || rawBody.length === 0) return { unreadableSecrets: false };
	const nodeData = context.getWorkflowStaticData('node');
	const remembered = rememberedSecretBox(context);
	let stored = remembered && readStoredSubscriptions(nodeData, remembered);
	// Nothing remembered, or secrets sealed since under another key (the workflow was
	// activated again in another process after the credential got a new API key).
	if (!stored || unreadableIds(stored).length > 0)
		stored = readStoredSubscriptions(nodeData, await freshSecretBox(context));
	const unreadableSecrets = unreadableIds(stored).length > 0;
	return {
		event: verifiedEvent(request, rawBody, storedEntries(stored), acceptLegacy),
		unreadableSecrets,
	};
}

/**
 * Finds the event only a valid signature vouches for. With the v2 signature the raw bytes
 * are checked against each stored secret before the body is even parsed, and the topic
 * must be the one of the subscription whose secret matched. The legacy signature covers
 * id, topic and timestamp only, so those are read first and checked with that topic's secret.
 */
function verifiedEvent(
	request: ReturnType<IWebhookFunctions['getRequestObject']>,
	rawBody: Buffer,
	subscriptions: ReturnType<typeof storedEntries>,
	acceptLegacy: boolean,
): LeadEvent | undefined {
	const v2 = singleHeaderValue(request.headers, V2_SIGNATURE_HEADER);
	if (v2 !== undefined) {
		const match = subscriptions.find(([, subscription]) =>
			verifyV2Signature(rawBody, v2, subscription.signingSecret),
		);
		if (!match) return undefined;
		const event = parseLeadEvent(rawBody);
		return event?.topic === match[0] ? event : undefined;
	}

	// Only a delivery without the v2 header may fall back to the legacy one: a wrong v2
	// signature means the bytes changed, whatever the legacy signature says.
	const legacy = singleHeaderValue(request.headers, LEGACY_SIGNATURE_HEADER);
	if (!acceptLegacy || legacy === undefined) return undefined;
	const claimed = parseLeadEvent(rawBody);
	const subscription = claimed && subscriptions.find(([topic]) => topic === claimed.topic)?.[1];
	if (!claimed || !subscription) return undefined;
	return verifyLegacySignature(claimed, legacy, subscription.signingSecret) ? claimed : undefined;
}

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

/** Whose events a memory holds: one trigger node of one workflow, its test URL apart. */
function eventScope(context: IWebhookFunctions): string {
	const mode = context.getMode() === 'manual' ? 'test' : 'production';
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}:${mode}`;
}

const IGNORED_REASONS = {
	tooOld: 'the event is older than the Maximum Event Age',
	inFuture: 'the event time is more than 5 minutes in the future',
	unreadable: 'the event time is not an ISO 8601 date',
	beyondMemory:
		'the event is older than the oldest event the trigger still remembers (more events arrived within the Maximum Event Age than it can remember)',
} as const;

/**
 * A validly signed event outside the accepted window may be a captured delivery sent again:
 * nothing runs. It is acknowledged with a 200 all the same, since the service's retries
 * carry the same event time and could never be accepted either.
 */
function ignoredAsReplay(
	context: IWebhookFunctions,
	event: LeadEvent,
	reason: keyof typeof IGNORED_REASONS,
): IWebhookResponseData {
	// No id or time: the log says why, without the event's values.
	context.logger.warn(
		`Partner Referral Service Trigger ignored a signed delivery as a possible replay: ${IGNORED_REASONS[reason]}`,
		{
			node: context.getNode().name,
			topic: event.topic,
			reason,
		},
	);
	return reply(context, 200, { received: true, ignored: 'possible replay', reason });
}

type DeliveryOptions = { acceptLegacySignature?: boolean; maxEventAgeHours?: number };

/** Verify: the event a valid signature vouches for, or the 401 for a delivery without one. */
async function verifyDelivery(
	context: IWebhookFunctions,
	options: DeliveryOptions,
): Promise<{ event: LeadEvent } | { response: IWebhookResponseData }> {
	const acceptLegacySignature = options.acceptLegacySignature === true;
	const { event, unreadableSecrets } = await authenticate(context, acceptLegacySignature);
	if (event) return { event };
	// Only which headers came, never their values: a refused delivery must be traceable
	// in n8n's log (a rotated secret, a proxy rewriting the body) without leaking anything.
	const { headers } = context.getRequestObject();
	const reason = unreadableSecrets
		? ' (some stored signing secrets cannot be read: the credential has a new API key or the workflow was copied; deactivate and activate the workflow to renew the subscriptions)'
		: '';
	context.logger.warn(
		`Partner Referral Service Trigger refused a delivery whose signature did not verify${reason}`,
		{
			node: context.getNode().name,
			hasV2Signature: singleHeaderValue(headers, V2_SIGNATURE_HEADER) !== undefined,
			hasLegacySignature: singleHeaderValue(headers, LEGACY_SIGNATURE_HEADER) !== undefined,
			acceptLegacySignature,
			unreadableSecrets,
		},
	);
	return { response: rejected(context, UNVERIFIED) };
}

const INTERRUPTED: Rejection = {
	status: 503,
	error: 'in_progress',
	message:
		'The run of this event was interrupted; it runs again once the trigger is back; retry later',
};

function inFlightRun(context: IWebhookFunctions, scope: string, key: string): boolean {
	return new RunsInFlight(context.getWorkflowStaticData('node'), scope).get(key) !== undefined;
}

/** The watched values before an interrupted run: its run again shows the same `from`. */
function interruptedBefore(context: IWebhookFunctions, claimed: ClaimedEvent) {
	const nodeData = context.getWorkflowStaticData('node');
	const run = new RunsInFlight(nodeData, eventScope(context)).get(claimed.mark.key);
	return unpackKeptLead(run?.watchedBefore);
}

/**
 * A delivery of an event that ran. Where runs finished since the database last heard of them
 * (no delivery waited for them), this answer saves them first: n8n saves, then answers.
 */
function duplicate(
	context: IWebhookFunctions,
	executor: RunExecutor | undefined,
	maxAgeSeconds: number,
): IWebhookResponseData {
	const body = { received: true, duplicate: true };
	if (executor) {
		const nodeData = context.getWorkflowStaticData('node');
		const records = new RunRecords(nodeData, executor.scope, maxAgeSeconds);
		if (records.inFlight.storedIsStale) {
			records.writeBack();
			return { webhookResponse: body };
		}
	}
	return reply(context, 200, body);
}

/** An authentic event in the window, not seen before, and claimed by this delivery. */
interface ClaimedEvent {
	event: LeadEvent;
	/** the event time, from the ISO timestamp where it has milliseconds */
	eventMs: number;
	isTest: boolean;
	fetchFullLead: boolean;
	/** the production recovery's ledger; none for test deliveries and deletions */
	ledger?: RecoveryLedger;
	/** possibly the service's late retry of a change a recovery already ran */
	mayBeRecovered: boolean;
	seen: SeenEvents;
	mark: ReturnType<typeof eventMark>;
	/** the trigger() of this node when it runs in this process: the event runs through it */
	executor?: RunExecutor;
	/** its run was in flight when n8n stopped: it runs again (marked) unless it finished since */
	interrupted: boolean;
	maxAgeSeconds: number;
	/** a topic the user chose (false: seen only to keep a new lead's watched values) */
	selected: boolean;
	watch: WatchSettings;
}

/**
 * Whether the event's topic is handled: a chosen one, or a creation seen only to keep a new
 * lead's watched values (never in a test). Undefined: not handled.
 */
function topicInterest(
	context: IWebhookFunctions,
	event: LeadEvent,
): Pick<ClaimedEvent, 'selected' | 'watch'> | undefined {
	const topics = selectedTopics(context.getNodeParameter('events', []));
	const watch = watchSettingsOf(context);
	const selected = topics.includes(event.topic);
	if (selected) return { selected, watch };
	if (context.getMode() === 'manual') return undefined;
	return observedTopics(topics, watch.fields.length > 0).includes(event.topic)
		? { selected, watch }
		: undefined;
}

/** The watched values a delivery compares with; a test event reads those stored, keeps nothing. */
function watchedLeadsFor(context: IWebhookFunctions, claimed: ClaimedEvent): WatchedLeads {
	const scope = claimed.isTest ? undefined : productionScope(context);
	return new WatchedLeads(context.getWorkflowStaticData('node'), scope, claimed.watch.fields);
}

/**
 * Classify: what answers the delivery without running anything (a topic not selected, a
 * possible replay, a duplicate, another delivery of it in progress), or the claimed event.
 */
function classifyDelivery(
	context: IWebhookFunctions,
	event: LeadEvent,
	options: DeliveryOptions,
): { claimed: ClaimedEvent } | { response: IWebhookResponseData } {
	// Authentic, but for a topic no longer selected (a subscription from before the
	// selection changed): acknowledged, so the service stops retrying what nobody wants.
	const interest = topicInterest(context, event);
	if (!interest) {
		return { response: reply(context, 200, { received: true, ignored: 'topic not selected' }) };
	}
	const isTest = context.getMode() === 'manual';
	const maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
	const age = judgeEventAge(event.timestamp, maxAgeSeconds);
	if (age.verdict !== 'inWindow') return { response: ignoredAsReplay(context, event, age.verdict) };
	// Test deliveries are never recovered and leave nothing in the production ledger.
	const ledger =
		isTest || event.topic === 'lead/delete'
			? undefined
			: new RecoveryLedger(context.getWorkflowStaticData('node'), productionScope(context), {
					maxAgeSeconds,
				});
	const eventMs = isoTimeMs(event.timestamp) ?? age.timeSeconds * 1000;
	// Possibly the service's late retry of a change a recovery already ran: without the
	// lead's updatedAt to tell, the event time decides.
	const mayBeRecovered = ledger?.mayBeRecovered(event.id, eventMs) === true;
	const fetchFullLead = fetchesFullLead(context);
	if (mayBeRecovered && !fetchFullLead)
		return { response: reply(context, 200, { received: true, duplicate: true }) };
	const scope = eventScope(context);
	const seen = new SeenEvents(context.getWorkflowStaticData('node'), scope, { maxAgeSeconds });
	const mark = eventMark(event, age.timeSeconds);
	const executor = isTest ? undefined : runExecutorFor(scope);
	const interrupted = !isTest && inFlightRun(context, scope, mark.key);
	// Its run was under way when n8n stopped: the trigger runs it again, wherever it runs.
	if (interrupted && !executor) return { response: rejected(context, INTERRUPTED) };
	const recalled = interrupted ? 'new' : seen.recall(mark);
	if (recalled === 'seen') return { response: duplicate(context, executor, maxAgeSeconds) };
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
	const claimed = { event, eventMs, isTest, fetchFullLead, ledger, mayBeRecovered, seen, mark };
	return { claimed: { ...claimed, executor, interrupted, maxAgeSeconds, ...interest } };
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

/**
 * An event that starts nothing (no watched field changed, or not to a chosen value; a creation
 * seen only for its values): its values are kept and it counts as run, so that neither the
 * service's retry nor a recovery judges it again. n8n saves static data, then answers.
 */
function keptWithoutRun(
	context: IWebhookFunctions,
	claimed: ClaimedEvent,
	version: LeadVersion,
	watchedLeads: WatchedLeads,
	outcome: WatchedOutcome,
): IWebhookResponseData {
	if (claimed.isTest) return reply(context, 200, { received: true, started: false });
	applyWatchedOutcome(watchedLeads, claimed.event.id, outcome);
	claimed.ledger?.recordDelivered(claimed.event.id, version);
	claimed.seen.remember(claimed.mark);
	if (claimed.executor)
		new RunRecords(
			context.getWorkflowStaticData('node'),
			claimed.executor.scope,
			claimed.maxAgeSeconds,
		).writeBack();
	return { webhookResponse: { received: true, started: false } };
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
	const watchedLeads = watchedLeadsFor(context, claimed);
	const watched = await watchedOutcome(context, watchedLeads, claimed.watch, {
		leadId: event.id,
		topic: event.topic,
		lead: isRecord(json.lead) ? json.lead : undefined,
		fallbackMs: eventMs,
		selected: claimed.selected,
		test: claimed.isTest,
		rerun: claimed.interrupted ? { before: interruptedBefore(context, claimed) } : undefined,
	});
	if (!watched.start) return keptWithoutRun(context, claimed, version, watchedLeads, watched);
	if (watched.changes) withChanges(json, watched.changes);
	if (claimed.executor) {
		const { executor, mark, maxAgeSeconds, interrupted } = claimed;
		const scope = eventScope(context);
		const held = { event, key: mark.key, json, version, scope, maxAgeSeconds, interrupted };
		return await runAndAnswer(context, executor, { ...held, watch: watched.record });
	}
	if (!claimed.isTest) applyWatchedOutcome(watchedLeads, event.id, watched);
	ledger?.recordDelivered(event.id, version);
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
