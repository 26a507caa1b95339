/**
 * Lead ids packed small for static data: the ids listed last time, so that deletes are the
 * ids listed then and not now. The service does not say what its ids look like, so each id is
 * packed by its form: lowercase UUIDs (16 bytes) and lowercase hex ids (half their length) as
 * bytes in one base64 block per byte length, anything else (numbers, other text) as text.
 * 24-hex ids cost 16 bytes each, UUIDs 21.3, 6-digit numbers 7 (bench/README.md).
 */

/**
 * Lead ids are kept packed (for deletes) while they take at most this much: static data is saved
 * whole, so every save carries them. The Polling Trigger's bound; the webhook trigger keeps a
 * large listing as a sketch of fixed size instead (idSketch.ts), packed only when its ids are
 * too long for one.
 */
export const MAX_LEAD_ID_BYTES = 1_000_000;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = /^(?:[0-9a-f]{2}){1,64}$/;
const TEXT_SEPARATOR = '\n';

/** Packed ids: `u` UUIDs, `h<n>` hex ids of n bytes, `t` the others. */
export type PackedIds = Record<string, string>;

export function uuidOf(bytes: Buffer): string {
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function packIds(ids: Iterable<string>): PackedIds {
	const blocks = new Map<string, Buffer[]>();
	const texts: string[] = [];
	const add = (key: string, bytes: Buffer) => {
		const block = blocks.get(key);
		if (block) block.push(bytes);
		else blocks.set(key, [bytes]);
	};
	for (const id of ids) {
		if (UUID.test(id)) add('u', Buffer.from(id.replace(/-/g, ''), 'hex'));
		else if (HEX.test(id)) add(`h${id.length / 2}`, Buffer.from(id, 'hex'));
		else if (!id.includes(TEXT_SEPARATOR)) texts.push(id);
	}
	const packed: PackedIds = {};
	for (const [key, block] of blocks) packed[key] = Buffer.concat(block).toString('base64');
	if (texts.length > 0) packed.t = texts.join(TEXT_SEPARATOR);
	return packed;
}

export function unpackIds(packed: unknown): Set<string> {
	const ids = new Set<string>();
	if (typeof packed !== 'object' || packed === null || Array.isArray(packed)) return ids;
	for (const [key, value] of Object.entries(packed as Record<string, unknown>)) {
		if (typeof value !== 'string' || value === '') continue;
		if (key === 't') {
			for (const id of value.split(TEXT_SEPARATOR)) ids.add(id);
			continue;
		}
		const size = key === 'u' ? 16 : Number(key.slice(1));
		if (!/^(u|h\d+)$/.test(key) || !(size > 0)) continue;
		const bytes = Buffer.from(value, 'base64');
		for (let at = 0; at + size <= bytes.length; at += size) {
			const id = bytes.subarray(at, at + size);
			ids.add(key === 'u' ? uuidOf(id) : id.toString('hex'));
		}
	}
	return ids;
}

/** Bytes the packed ids take in static data (JSON, as n8n stores it). */
export function packedBytes(packed: PackedIds): number {
	return Buffer.byteLength(JSON.stringify(packed));
}
