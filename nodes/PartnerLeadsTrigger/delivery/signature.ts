import { createHmac, timingSafeEqual } from 'crypto';

import type { LeadEvent } from '../../shared/leadItem';

/** Signature headers: v2 over the raw body, legacy over the event's fields. */
export const V2_SIGNATURE_HEADER = 'x-svc-signature-v2';
export const LEGACY_SIGNATURE_HEADER = 'x-svc-signature';

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
export function singleHeaderValue(headers: unknown, name: string): string | undefined {
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
