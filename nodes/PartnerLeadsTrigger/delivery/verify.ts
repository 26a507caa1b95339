import { createHmac, timingSafeEqual } from 'crypto';
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isRecord } from '../../shared/transport/record';
import { isLeadTopic } from '../../shared/topics';
import {
	freshSecretBox,
	rememberedSecretBox,
	storedEntries,
	SUBSCRIPTIONS,
	unreadableIds,
} from '../state/subscriptions';
import { type Rejection, rejected } from './answers';

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

/** The event in the raw body, or undefined if it is not a valid one; never throws. */
export function parseLeadEvent(rawBody: Buffer): LeadEvent | undefined {
	let parsed: unknown;
	try {
		parsed = JSON.parse(rawBody.toString('utf8'));
	} catch {
		return undefined;
	}
	if (!isRecord(parsed)) return undefined;
	const { id, topic, timestamp } = parsed;
	if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) return undefined;
	if (
		typeof timestamp !== 'string' ||
		timestamp.length === 0 ||
		timestamp.length > MAX_TIMESTAMP_LENGTH
	) {
		return undefined;
	}
	if (!isLeadTopic(topic)) return undefined;
	return { id, topic, timestamp };
}

export type DeliveryOptions = { acceptLegacySignature?: boolean; maxEventAgeHours?: number };

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
	let stored = remembered && SUBSCRIPTIONS.read(nodeData, remembered);
	// Nothing remembered, or secrets sealed since under another key (the workflow was
	// activated again in another process after the credential got a new API key).
	if (!stored || unreadableIds(stored).length > 0)
		stored = SUBSCRIPTIONS.read(nodeData, await freshSecretBox(context));
	const unreadableSecrets = unreadableIds(stored).length > 0;
	return {
		event: verifiedEvent(request, rawBody, storedEntries(stored), acceptLegacy),
		unreadableSecrets,
	};
}

/**
 * The event a valid signature vouches for. v2 signs the raw bytes (checked before parsing; the
 * topic must match the secret's subscription); legacy covers only id, topic and timestamp.
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

/** Verify: the event a valid signature vouches for, or the 401 for a delivery without one. */
export async function verifyDelivery(
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
