import type { LeadEvent } from '../../shared/leadItem';
import { isRecord } from '../../shared/transport/record';
import { isLeadTopic } from '../../shared/topics';

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
