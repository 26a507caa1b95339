import { createHash } from 'crypto';

import { UUID, uuidOf } from './leadIds';

/** Lead ids as an invertible Bloom lookup table: a fixed 60 KB however many leads there are. */

export const SKETCH_CELLS = 2_250;

/** Left-over ids the sketch reads back in full (tested with random ids of every form). */
export const SKETCH_NAMES_UP_TO = 1_500;

/** An id whose encoding takes more than this is kept only in a packed listing. */
export const MAX_SKETCH_ID_BYTES = 64;

/** The narrowest cell's id part: a sketch takes at least storedBytes(NARROWEST_WIDTH). */
const NARROWEST_WIDTH = 2;
const PARTS = 3;
const PART_CELLS = SKETCH_CELLS / PARTS;
const COUNT_BYTES = 2;
const CHECK_BYTES = 4;
const HEADER_BYTES = COUNT_BYTES + CHECK_BYTES;

const HEX = /^(?:[0-9a-f]{2})+$/;
const FORM = { hex: 1, uuid: 2, text: 3 } as const;

/** An id as the sketch keeps it: its form, its length, its bytes (hex and UUIDs as bytes). */
export function encodedId(id: string): Buffer | undefined {
	let form: number;
	let bytes: Buffer;
	if (UUID.test(id)) [form, bytes] = [FORM.uuid, Buffer.from(id.replace(/-/g, ''), 'hex')];
	else if (HEX.test(id)) [form, bytes] = [FORM.hex, Buffer.from(id, 'hex')];
	else [form, bytes] = [FORM.text, Buffer.from(id, 'utf8')];
	if (id === '' || bytes.length + 2 > MAX_SKETCH_ID_BYTES) return undefined;
	return Buffer.concat([Buffer.from([form, bytes.length]), bytes]);
}

/** The id a cell's bytes hold, when they are one whole encoded id (zeros after it). */
function decodedId(key: Buffer): string | undefined {
	const [form, length] = key;
	if (length === 0 || 2 + length > key.length) return undefined;
	for (let at = 2 + length; at < key.length; at++) if (key[at] !== 0) return undefined;
	const bytes = key.subarray(2, 2 + length);
	if (form === FORM.hex) return bytes.toString('hex');
	if (form === FORM.text) return bytes.toString('utf8');
	return form === FORM.uuid && length === 16 ? uuidOf(bytes) : undefined;
}

function placesOf(id: string): { cells: number[]; check: number } {
	const hash = createHash('sha256').update(id).digest();
	const cells: number[] = [];
	for (let part = 0; part < PARTS; part++)
		cells.push(part * PART_CELLS + (hash.readUInt32LE(part * 4) % PART_CELLS));
	return { cells, check: hash.readUInt32LE(PARTS * 4) };
}

/** The sketch as static data keeps it: the width of a cell's id bytes and the cells, base64. */
export interface StoredSketch {
	width: number;
	cells: string;
}

/** What a sketch holds that the ids taken from it did not. */
export interface LeftOver {
	/** ids in the sketch's set and not taken out */
	ids: string[];
	/** false when some ids could not be read back: too many were left over */
	complete: boolean;
	/** about how many ids were not read back (a lower bound) */
	unnamed: number;
}

export class IdSketch {
	private constructor(
		/** bytes of a cell's id part: the longest encoded id it was made with */
		readonly width: number,
		private readonly cells: Buffer,
	) {}

	private get cellBytes(): number {
		return HEADER_BYTES + this.width;
	}

	/** A sketch of these ids; undefined when one of them is too long to go in. */
	static of(ids: Iterable<string>): IdSketch | undefined {
		const empty = Buffer.alloc(SKETCH_CELLS * (HEADER_BYTES + NARROWEST_WIDTH));
		return new IdSketch(NARROWEST_WIDTH, empty).with(ids);
	}

	/** These ids added (a sweep read over several looks); undefined when one is too long to go in. */
	with(ids: Iterable<string>): IdSketch | undefined {
		const encoded: Array<[string, Buffer]> = [];
		let width = this.width;
		for (const id of ids) {
			const bytes = encodedId(id);
			if (!bytes) return undefined;
			encoded.push([id, bytes]);
			width = Math.max(width, bytes.length);
		}
		const sketch = this.widened(width);
		for (const [id, bytes] of encoded) sketch.toggle(id, bytes, 1);
		return sketch;
	}

	/** The ids of this sketch's set not in `other`'s (an id listed twice in `other` only uses up room). */
	without(other: IdSketch): LeftOver {
		const width = Math.max(this.width, other.width);
		const work = this.widened(width);
		const taken = other.widened(width);
		for (let cell = 0; cell < SKETCH_CELLS; cell++) {
			const at = cell * work.cellBytes;
			work.cells.writeInt16LE(wrap(work.cells.readInt16LE(at) - taken.cells.readInt16LE(at)), at);
			for (let byte = 2; byte < work.cellBytes; byte++)
				work.cells[at + byte] ^= taken.cells[at + byte];
		}
		return work.peel();
	}

	/** A copy whose cells hold ids up to `width` bytes (shorter ones end in zeros: the same XOR). */
	private widened(width: number): IdSketch {
		if (width === this.width) return new IdSketch(width, Buffer.from(this.cells));
		const wide = new IdSketch(width, Buffer.alloc(SKETCH_CELLS * (HEADER_BYTES + width)));
		for (let cell = 0; cell < SKETCH_CELLS; cell++)
			this.cells.copy(
				wide.cells,
				cell * wide.cellBytes,
				cell * this.cellBytes,
				(cell + 1) * this.cellBytes,
			);
		return wide;
	}

	/** The stored form back; undefined when it is not one. */
	static from(stored: unknown): IdSketch | undefined {
		if (typeof stored !== 'object' || stored === null) return undefined;
		const { width, cells } = stored as Partial<StoredSketch>;
		if (typeof width !== 'number' || !Number.isInteger(width) || typeof cells !== 'string')
			return undefined;
		if (width < NARROWEST_WIDTH || width > MAX_SKETCH_ID_BYTES) return undefined;
		const bytes = Buffer.from(cells, 'base64');
		if (bytes.length !== SKETCH_CELLS * (HEADER_BYTES + width)) return undefined;
		return new IdSketch(width, bytes);
	}

	stored(): StoredSketch {
		return { width: this.width, cells: this.cells.toString('base64') };
	}

	/** Bytes the stored form takes in static data (JSON, as n8n stores it). */
	static storedBytes(width: number): number {
		return Math.ceil((SKETCH_CELLS * (HEADER_BYTES + width)) / 3) * 4 + 30;
	}

	/** The fewest bytes any sketch takes stored: ids packed into fewer are never worth sketching. */
	static readonly smallestStoredBytes = IdSketch.storedBytes(NARROWEST_WIDTH);

	/** The set's ids not in `taken`; ids taken that were never in the set only use up room. */
	leftOver(taken: Iterable<string>): LeftOver {
		const work = new IdSketch(this.width, Buffer.from(this.cells));
		for (const id of new Set(taken)) {
			const bytes = encodedId(id);
			// longer than every id of the set: it cannot be one of them
			if (bytes && bytes.length <= this.width) work.toggle(id, bytes, -1);
		}
		return work.peel();
	}

	private toggle(id: string, bytes: Buffer, sign: 1 | -1, places = placesOf(id)): void {
		for (const cell of places.cells) {
			const at = cell * this.cellBytes;
			this.cells.writeInt16LE(wrap(this.cells.readInt16LE(at) + sign), at);
			this.cells.writeUInt32LE((this.cells.readUInt32LE(at + 2) ^ places.check) >>> 0, at + 2);
			for (let byte = 0; byte < bytes.length; byte++)
				this.cells[at + HEADER_BYTES + byte] ^= bytes[byte];
		}
	}

	/** The id a cell holds alone, with its sign; undefined when it holds none or several. */
	private single(cell: number): { id: string; sign: 1 | -1 } | undefined {
		const at = cell * this.cellBytes;
		const count = this.cells.readInt16LE(at);
		if (count !== 1 && count !== -1) return undefined;
		const id = decodedId(this.cells.subarray(at + HEADER_BYTES, at + this.cellBytes));
		if (id === undefined) return undefined;
		const places = placesOf(id);
		if (places.check !== this.cells.readUInt32LE(at + 2) || !places.cells.includes(cell))
			return undefined;
		return { id, sign: count };
	}

	private peel(): LeftOver {
		const ids: string[] = [];
		const pending: number[] = [];
		for (let cell = 0; cell < SKETCH_CELLS; cell++) pending.push(cell);
		while (pending.length > 0) {
			const found = this.single(pending.pop() as number);
			if (!found) continue;
			if (found.sign === 1) ids.push(found.id);
			const places = placesOf(found.id);
			this.toggle(found.id, encodedId(found.id) as Buffer, found.sign === 1 ? -1 : 1, places);
			pending.push(...places.cells);
		}
		// Each id adds 1 to PARTS cells: the rest counts unread ids, less those never in the set.
		let count = 0;
		let complete = true;
		for (let cell = 0; cell < SKETCH_CELLS; cell++) {
			const at = cell * this.cellBytes;
			count += this.cells.readInt16LE(at);
			if (complete && this.cells.subarray(at, at + this.cellBytes).some((byte) => byte !== 0))
				complete = false;
		}
		return { ids, complete, unnamed: complete ? 0 : Math.max(0, Math.round(count / PARTS)) };
	}
}

/** A count kept in 16 bits: it wraps, and only its small values (one id) are read. */
function wrap(count: number): number {
	return count > 32_767 ? count - 65_536 : count < -32_768 ? count + 65_536 : count;
}
