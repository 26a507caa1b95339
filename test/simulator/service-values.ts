import type { Prng } from './ids';
import type { Personality } from './personality';

/**
 * Ids and timestamps as the personality's service writes them. Generated ids come from the
 * seeded PRNG so a seed replays the same run, whatever the format.
 */

function uuidFrom(ids: Prng): string {
	const hex = ids.hex(32).split('');
	hex[12] = '4'; // version 4
	hex[16] = '89ab'[parseInt(hex[16], 16) & 3]; // RFC 4122 variant
	const h = hex.join('');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function idFrom(ids: Prng, format: Personality['ids']): string {
	if (format === 'uuid') return uuidFrom(ids);
	// Digits only, no leading zero, like an auto-increment key (still a JSON string: the spec's ids are strings).
	if (format === 'numeric') return String(100_000 + ids.int(900_000_000));
	return ids.hex(24);
}

/** A new lead or subscription id that `taken` does not know yet. */
export function newServiceId(
	ids: Prng,
	personality: Personality,
	taken: (id: string) => boolean,
): string {
	let id = idFrom(ids, personality.ids);
	while (taken(id)) id = idFrom(ids, personality.ids);
	return id;
}

/** Step between two distinct timestamps of this service (it cannot say "later" in less). */
export function timestampResolutionMs(personality: Personality): number {
	return personality.timestamps === 'seconds' ? 1000 : 1;
}

/** ISO 8601 UTC: `2026-01-02T03:04:05.678Z`, or `2026-01-02T03:04:05Z` for a service without milliseconds. */
export function serviceTimestamp(personality: Personality, ms: number = Date.now()): string {
	const iso = new Date(ms).toISOString();
	return personality.timestamps === 'seconds' ? iso.replace(/\.\d{3}Z$/, 'Z') : iso;
}
