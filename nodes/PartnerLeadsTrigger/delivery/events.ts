import type { LeadEvent } from '../../shared/leadItem';
import { isRecord } from '../../shared/transport/record';
import { isLeadTopic } from '../../shared/topics';

// Generous bounds: enough for any real id or ISO timestamp, small enough that a hostile
// body cannot make us fetch or remember something absurd.
const MAX_ID_LENGTH = 200;
const MAX_TIMESTAMP_LENGTH = 64;

/**
 * Reads the event from the raw body bytes. Returns undefined for anything that is not a
 * JSON object with a known topic, a non-empty string id and a string timestamp; never
 * throws, whatever the bytes are.
 */
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
