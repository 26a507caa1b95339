/** Ids listed last time (to find deletes); ids have no set format: UUIDs, hex as bytes, or text. */

/** Bound on packed ids (every save carries them); the webhook trigger uses idSketch.ts instead. */
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
