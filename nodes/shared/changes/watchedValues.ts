import type { IDataObject } from 'n8n-workflow';

import type { KeptRow } from './fieldChanges';
import { LEAD_KEY_HEX } from './versions';
import type { KeptLead } from './watchVerdict';

/** Each lead's last watched values, a line per lead: its key (versions.ts), 11 hex version ms, JSON values. */

export const WATCHED_KEY = 'watched';

/** Longer values (as JSON) are kept as their fingerprint. */
export const MAX_KEPT_VALUE_CHARS = 64;

/** About 40,000 leads with one field, 20,000 with five. */
export const MAX_WATCHED_BYTES = 2_000_000;

const KEY_LENGTH = LEAD_KEY_HEX;
const TIME_LENGTH = 11;
const SEPARATOR = '\n';
const KEY = new RegExp(`^[0-9a-f]{${LEAD_KEY_HEX}}$`);

function packEntry(key: string, lead: KeptLead): string {
	const time = Math.max(0, Math.min(lead.ms, 0xfffffffffff));
	return key + time.toString(16).padStart(TIME_LENGTH, '0') + JSON.stringify(lead.row);
}

function rowOf(json: string, width: number): KeptRow | undefined {
	try {
		const row = JSON.parse(json) as unknown;
		return Array.isArray(row) && row.length === width ? (row as KeptRow) : undefined;
	} catch {
		return undefined;
	}
}

/** The fields' values per lead, with each lead's packed entry (packing is per change). */
export class WatchedValues {
	private readonly leads = new Map<string, KeptLead & { entry: string; bytes: number }>();

	/** the entries' bytes as n8n stores them (quotes and line breaks escaped) */
	private storedBytes = 0;

	/** the packed form, until a lead changes: a delivery writes static data several times */
	private packed: string | undefined;

	constructor(readonly fields: readonly string[]) {}

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
		this.storedBytes -= known.bytes;
		this.leads.delete(key);
		this.packed = undefined;
	}

	private put(key: string, lead: KeptLead): void {
		const entry = packEntry(key, lead);
		// the same version with the same values: nothing to write again
		if (this.leads.get(key)?.entry === entry) return;
		this.drop(key);
		// as n8n stores it: the entry JSON-escaped, without its quotes, and the escaped line break
		const bytes = JSON.stringify(entry).length - 2 + 2;
		this.leads.set(key, { ...lead, entry, bytes });
		this.storedBytes += bytes;
		this.packed = undefined;
	}

	/** Takes in a stored copy's leads: per lead the newer version (the kept one on a tie). */
	merge(packed: unknown): void {
		if (typeof packed !== 'string' || packed === '') return;
		for (const line of packed.split(SEPARATOR)) {
			const key = line.slice(0, KEY_LENGTH);
			const known = this.leads.get(key);
			// a copy mostly holds what memory has: the same entry is skipped unread
			if (known?.entry === line) continue;
			const ms = parseInt(line.slice(KEY_LENGTH, KEY_LENGTH + TIME_LENGTH), 16);
			if (!KEY.test(key) || !Number.isFinite(ms) || (known && known.ms >= ms)) continue;
			const row = rowOf(line.slice(KEY_LENGTH + TIME_LENGTH), this.fields.length);
			if (row) this.put(key, { ms, row });
		}
	}

	/** Forgets the leads changed longest ago until the values fit in `maxBytes`. */
	forgetBeyond(maxBytes: number): number {
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
		return forgotten;
	}

	pack(): string {
		this.packed ??= [...this.leads.values()].map(({ entry }) => entry).join(SEPARATOR);
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
	state.values.merge(stored.leads);
	if (stored.complete === true) state.complete = true;
}

/** The stored form of the values, after forgetting the oldest beyond the bound. */
export function storedWatchedValues(state: WatchedState): IDataObject {
	state.values.forgetBeyond(MAX_WATCHED_BYTES);
	return { fields: [...state.values.fields], complete: state.complete, leads: state.values.pack() };
}

/** An empty state for these fields. */
export function watchedStateFor(fields: readonly string[]): WatchedState {
	return { values: new WatchedValues(fields), complete: false };
}
