import { PackedBytes } from '../state/packedBytes';

/** Ids listed last time (to find deletes); ids have no set format: UUIDs, hex as bytes, or text. */

/** Bound on packed ids (every save carries them); the webhook trigger uses idSketch.ts instead. */
export const MAX_LEAD_ID_BYTES = 1_000_000;

/**
 * The Polling Trigger keeps ids up to this many bytes packed, more as two sketches
 * (sweepSketches.ts); the webhook trigger keeps whichever of the two forms is smaller.
 */
export const PACKED_LISTING_UP_TO_BYTES = 100_000;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = /^(?:[0-9a-f]{2}){1,64}$/;
const TEXT_SEPARATOR = '\n';

/** Packed ids: `u` UUIDs, `h<n>` hex ids of n bytes, `t` the others. */
export type PackedIds = Record<string, string>;

export function uuidOf(bytes: Buffer): string {
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An id's block and bytes (`u` UUIDs, `h<n>` hex ids of n bytes); undefined for a text id. */
function binaryForm(id: string): { block: string; bytes: Buffer } | undefined {
	if (UUID.test(id)) return { block: 'u', bytes: Buffer.from(id.replace(/-/g, ''), 'hex') };
	if (HEX.test(id)) return { block: `h${id.length / 2}`, bytes: Buffer.from(id, 'hex') };
	return undefined;
}

/** Ids packed by form, appended one at a time: a save writes what is packed, nothing re-packed. */
export class PackedIdsBuilder {
	private readonly blocks = new Map<string, PackedBytes>();

	private readonly texts: string[] = [];

	/** the packed form until the next id */
	private packed: PackedIds | undefined;

	static of(ids: Iterable<string>): PackedIdsBuilder {
		const builder = new PackedIdsBuilder();
		for (const id of ids) builder.add(id);
		return builder;
	}

	add(id: string): void {
		this.packed = undefined;
		const form = binaryForm(id);
		if (!form) {
			if (!id.includes(TEXT_SEPARATOR)) this.texts.push(id);
			return;
		}
		let block = this.blocks.get(form.block);
		if (!block) {
			block = new PackedBytes(1024);
			this.blocks.set(form.block, block);
		}
		block.room(form.bytes.length);
		form.bytes.copy(block.bytes, block.used);
		block.used += form.bytes.length;
		block.changed();
	}

	result(): PackedIds {
		if (!this.packed) {
			const packed: PackedIds = {};
			for (const [key, block] of this.blocks) packed[key] = block.toBase64();
			if (this.texts.length > 0) packed.t = this.texts.join(TEXT_SEPARATOR);
			this.packed = packed;
		}
		return this.packed;
	}
}

export function packIds(ids: Iterable<string>): PackedIds {
	return PackedIdsBuilder.of(ids).result();
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
