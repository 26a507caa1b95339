import { createHmac, timingSafeEqual } from 'crypto';
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isRecord } from '../../shared/transport/record';
import { isLeadTopic, type LeadTopic } from '../../shared/topics';
import {
	freshSecretBox,
	rememberedSecretBox,
	storedEntries,
	SUBSCRIPTIONS,
	unreadableIds,
} from '../state/sealedSubscriptions';
import { ignoredAsMalformed, type MalformedReason, type Rejection, rejected } from './answers';

/** Verify: only a delivery signed by a subscription of this trigger goes any further. */

/** Signature headers: v2 over the raw body, legacy over the event's fields. */
const V2_SIGNATURE_HEADER = 'x-svc-signature-v2';
const LEGACY_SIGNATURE_HEADER = 'x-svc-signature';

const SHA256_HEX = /^[0-9a-f]{64}$/i;

function hmacSha256(secret: string, data: Buffer | string): Buffer {
	return createHmac('sha256', secret).update(data).digest();
}

/** Constant-time compare; format and length checked first, as timingSafeEqual throws on them. */
function matches(presented: string | undefined, expected: Buffer): boolean {
	if (presented === undefined || !SHA256_HEX.test(presented)) return false;
	const presentedBytes = Buffer.from(presented, 'hex');
	return presentedBytes.length === expected.length && timingSafeEqual(presentedBytes, expected);
}

/** One header value as a string; repeated or missing headers give undefined. */
function singleHeaderValue(headers: unknown, name: string): string | undefined {
	if (headers === null || typeof headers !== 'object') return undefined;
	const value = (headers as Record<string, unknown>)[name];
	return typeof value === 'string' ? value.trim() : undefined;
}

/** v2: HMAC-SHA256 hex over the exact bytes received, before any parsing. */
export function verifyV2Signature(
	rawBody: Buffer,
	signature: string | undefined,
	secret: string,
): boolean {
	return matches(signature, hmacSha256(secret, rawBody));
}

/** Legacy: HMAC-SHA256 hex over `{"id","timestamp","topic"}`, the only fields the trigger uses. */
export function verifyLegacySignature(
	event: LeadEvent,
	signature: string | undefined,
	secret: string,
): boolean {
	const signed = JSON.stringify({ id: event.id, timestamp: event.timestamp, topic: event.topic });
	return matches(signature, hmacSha256(secret, Buffer.from(signed, 'utf8')));
}

// Generous bounds, so a hostile body cannot make us fetch or remember anything absurd.
const MAX_ID_LENGTH = 200;
const MAX_TIMESTAMP_LENGTH = 64;

/** The event in the raw body, or what is wrong with it; never throws. */
export function readLeadEvent(
	rawBody: Buffer,
): { event: LeadEvent } | { malformed: MalformedReason } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return { malformed: 'notJson' };
	}
	if (!isRecord(parsed)) return { malformed: 'notAnObject' };
	const { id, topic, timestamp } = parsed;
	if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH)
		return { malformed: 'id' };
	if (
		typeof timestamp !== 'string' ||
		timestamp.length === 0 ||
		timestamp.length > MAX_TIMESTAMP_LENGTH
	) {
		return { malformed: 'timestamp' };
	}
	if (!isLeadTopic(topic)) return { malformed: 'topic' };
	return { event: { id, topic, timestamp } };
}

/** The event in the raw body, or undefined if it is not a valid one; never throws. */
export function parseLeadEvent(rawBody: Buffer): LeadEvent | undefined {
	const read = readLeadEvent(rawBody);
	return 'event' in read ? read.event : undefined;
}

export type DeliveryOptions = { acceptLegacySignature?: boolean; maxEventAgeHours?: number };

const UNVERIFIED: Rejection = {
	status: 401,
	error: 'invalid_signature',
	message: 'The delivery is not signed by a subscription of this trigger',
};

/**
 * What a valid signature vouches for: a lead event, or a body the service signed that is none
 * (then the topic of the subscription whose secret signed it).
 */
type Vouched = { event: LeadEvent } | { malformed: MalformedReason; signedFor: LeadTopic };

/** What a valid signature vouches for, if anything, and whether some stored secrets could not be opened. */
type Authentication = { vouched?: Vouched; unreadableSecrets: boolean };

async function authenticate(
	context: IWebhookFunctions,
	acceptLegacy: boolean,
): Promise<Authentication> {
	const request = context.getRequestObject();
	const rawBody = (request as { rawBody?: unknown }).rawBody;
	if (!Buffer.isBuffer(rawBody) || rawBody.length === 0) return { unreadableSecrets: false };
	const nodeData = context.getWorkflowStaticData('node');
	const remembered = rememberedSecretBox(context);
	let stored = remembered && SUBSCRIPTIONS.read(nodeData, remembered);
	// Nothing remembered, or secrets sealed since under another key (the workflow was
	// activated again in another process after the credential got a new API key).
	if (!stored || unreadableIds(stored).length > 0)
		stored = SUBSCRIPTIONS.read(nodeData, await freshSecretBox(context));
	const unreadableSecrets = unreadableIds(stored).length > 0;
	return {
		vouched: verifiedEvent(request, rawBody, storedEntries(stored), acceptLegacy),
		unreadableSecrets,
	};
}

/**
 * What a valid signature vouches for. v2 signs the raw bytes, checked before parsing: a body it
 * vouches for is the service's own, even when it is no lead event of the secret's topic.
 * Legacy covers only id, topic and timestamp, so only a lead event can be checked with it.
 */
function verifiedEvent(
	request: ReturnType<IWebhookFunctions['getRequestObject']>,
	rawBody: Buffer,
	subscriptions: ReturnType<typeof storedEntries>,
	acceptLegacy: boolean,
): Vouched | undefined {
	const v2 = singleHeaderValue(request.headers, V2_SIGNATURE_HEADER);
	if (v2 !== undefined) {
		const match = subscriptions.find(([, subscription]) =>
			verifyV2Signature(rawBody, v2, subscription.signingSecret),
		);
		if (!match) return undefined;
		const [signedFor] = match;
		const read = readLeadEvent(rawBody);
		if ('malformed' in read) return { malformed: read.malformed, signedFor };
		return read.event.topic === signedFor ? read : { malformed: 'otherTopic', signedFor };
	}

	// Only a delivery without the v2 header may fall back to the legacy one: a wrong v2
	// signature means the bytes changed, whatever the legacy signature says.
	const legacy = singleHeaderValue(request.headers, LEGACY_SIGNATURE_HEADER);
	if (!acceptLegacy || legacy === undefined) return undefined;
	const claimed = parseLeadEvent(rawBody);
	const subscription = claimed && subscriptions.find(([topic]) => topic === claimed.topic)?.[1];
	if (!claimed || !subscription) return undefined;
	return verifyLegacySignature(claimed, legacy, subscription.signingSecret)
		? { event: claimed }
		: undefined;
}

/**
 * Verify: the event a valid signature vouches for; the 200 for a signed body that is no lead
 * event (the service's retry would carry the same bytes: answers.ts); the 401 for the rest.
 */
export async function verifyDelivery(
	context: IWebhookFunctions,
	options: DeliveryOptions,
): Promise<{ event: LeadEvent } | { response: IWebhookResponseData }> {
	const acceptLegacySignature = options.acceptLegacySignature === true;
	const { vouched, unreadableSecrets } = await authenticate(context, acceptLegacySignature);
	if (vouched && 'event' in vouched) return vouched;
	if (vouched)
		return { response: ignoredAsMalformed(context, vouched.signedFor, vouched.malformed) };
	// Only which headers came, never their values: a refused delivery must be traceable
	// in n8n's log (a rotated secret, a proxy rewriting the body) without leaking anything.
	const { headers } = context.getRequestObject();
	const reason = unreadableSecrets
		? ' (some stored signing secrets cannot be read: the credential has a new API key or the workflow was copied; the trigger renews its subscriptions at its next check, within 5 minutes)'
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
