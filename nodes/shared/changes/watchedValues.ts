import type { IDataObject } from 'n8n-workflow';

import type { KeptLead, KeptRow, KeptValue } from './fieldChanges';
import { LEAD_KEY_HEX } from './versions';

/**
 * Each lead's last watched values, packed as bytes in base64: its key (versions.ts, 6 bytes),
 * its version (ms, 6 bytes), then per field the index of its value in that field's dictionary
 * (a varint: one byte for the first 128 values). The dictionaries (`values`, JSON values per
 * field) hold each distinct value once: a status is one byte a lead, not its text.
 */

export const WATCHED_KEY = 'watched';

/** Longer values (as JSON) are kept as their fingerprint. */
export const MAX_KEPT_VALUE_CHARS = 64;

/** About 115,000 leads with one field, 80,000 with five (watched-values.test.ts). */
export const MAX_WATCHED_BYTES = 2_000_000;

const KEY_BYTES = LEAD_KEY_HEX / 2;
const MS_BYTES = 6;
const KEY = new RegExp(`^[0-9a-f]{${LEAD_KEY_HEX}}$`);

/** The stored form: the leads' bytes in base64 and the fields' dictionaries. */
export interface PackedWatched {
	leads: string;
	values: KeptValue[][];
}

interface Entry extends KeptLead {
	bytes: Buffer;
	/** per field, the index of its value */
	cells: number[];
}

function varint(value: number): number[] {
	const bytes: number[] = [];
	for (let rest = value; ; rest = Math.floor(rest / 128)) {
		if (rest < 128) return [...bytes, rest];
		bytes.push(rest % 128 | 128);
	}
}

/** Each field's distinct values, in the order they came, with how many leads hold each. */
class Dictionaries {
	private readonly indexes: Array<Map<string, number>>;
	readonly values: KeptValue[][];
	private readonly holders: number[][];
	/** values no lead holds any more */
	unused = 0;

	constructor(width: number) {
		this.indexes = Array.from({ length: width }, () => new Map<string, number>());
		this.values = Array.from({ length: width }, () => []);
		this.holders = Array.from({ length: width }, () => []);
	}

	/** The value's index, held by one more lead. */
	hold(field: number, value: KeptValue): number {
		const json = JSON.stringify(value);
		let index = this.indexes[field].get(json);
		if (index === undefined) {
			index = this.values[field].length;
			this.indexes[field].set(json, index);
			this.values[field].push(value);
			this.holders[field].push(0);
		} else if (this.holders[field][index] === 0) this.unused--;
		this.holders[field][index]++;
		return index;
	}

	release(cells: number[]): void {
		for (const [field, index] of cells.entries())
			if (--this.holders[field][index] === 0) this.unused++;
	}

	get size(): number {
		return this.values.reduce((sum, values) => sum + values.length, 0);
	}
}

/** A stored copy's entries, read one by one; stops at the first that does not read. */
function* entriesOf(stored: PackedWatched, width: number): Generator<[string, KeptLead]> {
	const bytes = Buffer.from(stored.leads, 'base64');
	let at = 0;
	while (at + KEY_BYTES + MS_BYTES <= bytes.length) {
		const key = bytes.toString('hex', at, at + KEY_BYTES);
		const ms = bytes.readUIntBE(at + KEY_BYTES, MS_BYTES);
		at += KEY_BYTES + MS_BYTES;
		const row: KeptRow = [];
		for (let field = 0; field < width; field++) {
			let index = 0;
			for (let shift = 1; ; shift *= 128) {
				if (at >= bytes.length) return;
				const byte = bytes[at++];
				index += (byte & 127) * shift;
				if (byte < 128) break;
			}
			const known = stored.values[field];
			if (!Array.isArray(known) || index >= known.length) return;
			row.push(known[index]);
		}
		yield [key, { ms, row }];
	}
}

/** The fields' values per lead, with each lead's packed entry (packing is per change). */
export class WatchedValues {
	private readonly leads = new Map<string, Entry>();
	private dictionaries: Dictionaries;

	/** the entries' bytes, before base64 */
	private entryBytes = 0;

	/** the stored form, until a lead changes: a delivery writes static data several times */
	private packed: PackedWatched | undefined;

	constructor(readonly fields: readonly string[]) {
		this.dictionaries = new Dictionaries(fields.length);
	}

	get(key: string): KeptLead | undefined {
		const known = this.leads.get(key);
		return known && { ms: known.ms, row: known.row };
	}

	/** Keeps the values unless a newer version of the lead is kept. */
	record(key: string, lead: KeptLead): void {
		const known = this.leads.get(key);
		if (known && known.ms > lead.ms) return;
		this.put(key, lead);
	}

	/** Puts back what a run that did not start had replaced, if nothing newer came since. */
	restore(key: string, recorded: KeptLead, previous: KeptLead | undefined): void {
		const known = this.leads.get(key);
		if (!known || known.ms !== recorded.ms) return;
		if (previous) this.put(key, previous);
		else this.drop(key);
	}

	drop(key: string): void {
		const known = this.leads.get(key);
		if (!known) return;
		this.dictionaries.release(known.cells);
		this.entryBytes -= known.bytes.length;
		this.leads.delete(key);
		this.packed = undefined;
	}

	/** The lead's entry, its values held in the dictionaries. */
	private entryOf(key: string, lead: KeptLead): Entry {
		const cells = lead.row.map((value, field) => this.dictionaries.hold(field, value));
		const head = Buffer.alloc(KEY_BYTES + MS_BYTES);
		head.write(key, 0, KEY_BYTES, 'hex');
		head.writeUIntBE(Math.max(0, Math.min(lead.ms, 2 ** 48 - 1)), KEY_BYTES, MS_BYTES);
		const bytes = Buffer.concat([head, Buffer.from(cells.flatMap(varint))]);
		return { ms: lead.ms, row: lead.row, bytes, cells };
	}

	private put(key: string, lead: KeptLead): void {
		if (!KEY.test(key) || lead.row.length !== this.fields.length) return;
		// the same version with the same values: nothing to write again
		const known = this.leads.get(key);
		if (known?.ms === lead.ms && JSON.stringify(known.row) === JSON.stringify(lead.row)) return;
		const entry = this.entryOf(key, lead);
		this.drop(key);
		this.leads.set(key, entry);
		this.entryBytes += entry.bytes.length;
		this.packed = undefined;
	}

	/** Takes in a stored copy's leads: per lead the newer version (the kept one on a tie). */
	merge(stored: unknown): void {
		if (typeof stored !== 'object' || stored === null) return;
		const { leads, values } = stored as Partial<PackedWatched>;
		if (typeof leads !== 'string' || !Array.isArray(values)) return;
		for (const [key, lead] of entriesOf({ leads, values }, this.fields.length)) {
			const known = this.leads.get(key);
			if (!known || known.ms < lead.ms) this.put(key, lead);
		}
	}

	/** The bytes stored: `{"leads":"<the entries in base64>","values":<the dictionaries>}`. */
	private get storedBytes(): number {
		const wrapping = '{"leads":"","values":}'.length;
		const leads = Math.ceil(this.entryBytes / 3) * 4;
		return wrapping + leads + JSON.stringify(this.dictionaries.values).length;
	}

	/** Forgets the leads changed longest ago until the values fit in `maxBytes`. */
	forgetBeyond(maxBytes: number): number {
		this.compact();
		if (this.storedBytes <= maxBytes) return 0;
		// a tenth below the bound, so that the sorting is not repeated on every change
		const target = maxBytes * 0.9;
		const byAge = [...this.leads.entries()].sort((a, b) => a[1].ms - b[1].ms);
		let forgotten = 0;
		for (const [key] of byAge) {
			if (this.storedBytes <= target) break;
			this.drop(key);
			forgotten++;
		}
		this.compact();
		return forgotten;
	}

	/** Values no lead holds any more leave the dictionaries once they are half of them. */
	private compact(): void {
		const { unused, size } = this.dictionaries;
		if (unused < 64 || unused * 2 < size) return;
		const entries = [...this.leads];
		this.dictionaries = new Dictionaries(this.fields.length);
		this.leads.clear();
		this.entryBytes = 0;
		for (const [key, entry] of entries) this.put(key, entry);
	}

	pack(): PackedWatched {
		this.packed ??= {
			leads: Buffer.concat([...this.leads.values()].map(({ bytes }) => bytes)).toString('base64'),
			values: this.dictionaries.values.map((values) => [...values]),
		};
		return this.packed;
	}
}

/** What is stored besides the values: whether the leads the portal held were all taken in. */
export interface WatchedState {
	values: WatchedValues;
	/** the portal's leads were listed and kept for these fields (a baseline) */
	complete: boolean;
}

export function sameFields(a: unknown, b: readonly string[]): boolean {
	return Array.isArray(a) && a.length === b.length && a.every((field, i) => field === b[i]);
}

/** Takes in one stored copy (of the same fields: values kept for others do not count). */
export function takeInWatchedValues(state: WatchedState, stored: IDataObject): void {
	if (!sameFields(stored.fields, state.values.fields)) return;
	state.values.merge(stored);
	if (stored.complete === true) state.complete = true;
}

/** The stored form of the values, after forgetting the oldest beyond the bound. */
export function storedWatchedValues(state: WatchedState): IDataObject {
	state.values.forgetBeyond(MAX_WATCHED_BYTES);
	return {
		fields: [...state.values.fields],
		complete: state.complete,
		...(state.values.pack() as unknown as IDataObject),
	};
}

/** An empty state for these fields. */
export function watchedStateFor(fields: readonly string[]): WatchedState {
	return { values: new WatchedValues(fields), complete: false };
}
