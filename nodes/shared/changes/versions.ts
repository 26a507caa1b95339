import { createHash } from 'crypto';

import { PackedBytes } from '../state/packedBytes';

/** Lead keys: 6 bytes of SHA-256 (a collision among 50,000 leads: about 1 in 200,000). */
export const LEAD_KEY_HEX = 12;

const KEY_BYTES = LEAD_KEY_HEX / 2;
/** 2^47 ms: the year 6429, so that a difference of doubled times stays an exact double */
const MAX_MS = 2 ** 47 - 1;
/** An entry's bytes at most: its key, and a zigzag difference of up to 2^49 in 7-bit groups. */
const MAX_ENTRY_BYTES = KEY_BYTES + 8;

/** A version of a lead that ran: its time, and whether that is the lead's updatedAt (exact). */
export interface LeadVersion {
	ms: number;
	exact: boolean;
}

/** Max gap between an event time and updatedAt for one change; used only without updatedAt. */
export const VERSION_TOLERANCE_MS = 5_000;

/** Whether a change at this time (the lead's updatedAt) is covered by a version that ran. */
export function covers(version: LeadVersion | undefined, updatedMs: number): boolean {
	if (!version) return false;
	return updatedMs <= version.ms + (version.exact ? 0 : VERSION_TOLERANCE_MS);
}

/** The lead id hashed, so every entry has the same small size whatever the ids look like. */
export function leadKey(leadId: string): string {
	return createHash('sha256').update(leadId).digest('hex').slice(0, LEAD_KEY_HEX);
}

/** Writes `value` (a whole number below 2^53) in 7-bit groups, low first; returns the end. */
function writeVarint(bytes: Buffer, at: number, value: number): number {
	while (value >= 128) {
		bytes[at++] = (value % 128) + 128;
		value = Math.floor(value / 128);
	}
	bytes[at++] = value;
	return at;
}

/**
 * Per lead, the newest version that ran, stored as one base64 string of entries in the order they
 * were written: the lead's key (6 bytes), then its version (ms, doubled, plus 1 when exact) as
 * a varint of its difference from the entry before (zigzag: it may go back). Versions come
 * nearly in time order, so that takes 2-3 bytes where the whole time took 6.
 * A version raised is appended; the entry it replaced stays until they are a twelfth.
 */
export class LeadVersions {
	private readonly versions = new Map<string, LeadVersion>();

	/** the entries as stored */
	private packed = new PackedBytes(1200);

	/** the doubled version of the entry written last: the next one is its difference from it */
	private lastValue = 0;

	/** entries in the packed bytes that a newer version of their lead replaced */
	private replaced = 0;

	/** newest version time (ms) ever forgotten */
	forgottenUpTo = 0;

	get(key: string): LeadVersion | undefined {
		return this.versions.get(key);
	}

	/** Versions up to this one count as forgotten (none is kept): nothing at or before it runs. */
	forgetUpTo(ms: number): void {
		this.forgottenUpTo = Math.max(this.forgottenUpTo, ms);
	}

	raise(key: string, version: LeadVersion): void {
		const known = this.versions.get(key);
		if (known && (known.ms > version.ms || (known.ms === version.ms && known.exact))) return;
		const ms = Math.max(0, Math.min(Math.floor(version.ms), MAX_MS));
		this.versions.set(key, { ms, exact: version.exact });
		if (known) this.replaced++;
		// reading keeps each lead's newest entry, so a replaced one only takes room: past a
		// twelfth of the entries they go (a sort by time at most every n/12 raises), so that
		// versions within 24 days of each other take less than 12 bytes a lead, as stored whole
		if (this.replaced * 12 > this.versions.size) this.rewrite([...this.versions]);
		else this.append(key, ms, version.exact);
	}

	private append(key: string, ms: number, exact: boolean): void {
		const packed = this.packed;
		packed.room(MAX_ENTRY_BYTES);
		packed.bytes.write(key, packed.used, KEY_BYTES, 'hex');
		const value = ms * 2 + (exact ? 1 : 0);
		const step = value - this.lastValue;
		packed.used = writeVarint(
			packed.bytes,
			packed.used + KEY_BYTES,
			step >= 0 ? step * 2 : -step * 2 - 1,
		);
		this.lastValue = value;
		packed.changed();
	}

	/** The entries written anew, oldest version first (the smallest differences). */
	private rewrite(entries: Array<[string, LeadVersion]>): void {
		entries.sort((a, b) => a[1].ms - b[1].ms);
		this.versions.clear();
		this.packed = new PackedBytes(1200);
		this.lastValue = 0;
		this.replaced = 0;
		for (const [key, version] of entries) {
			this.versions.set(key, version);
			this.append(key, version.ms, version.exact);
		}
	}

	merge(packed: unknown, forgottenUpTo: unknown): void {
		if (typeof packed === 'string') this.takeEntries(Buffer.from(packed, 'base64'));
		if (typeof forgottenUpTo === 'number' && Number.isFinite(forgottenUpTo))
			this.forgottenUpTo = Math.max(this.forgottenUpTo, forgottenUpTo);
	}

	/** Raises each stored entry's version; one cut short or out of range (damaged) ends it. */
	private takeEntries(bytes: Buffer): void {
		let value = 0;
		let at = 0;
		while (at + KEY_BYTES < bytes.length) {
			const key = bytes.toString('hex', at, at + KEY_BYTES);
			at += KEY_BYTES;
			let step = 0;
			let scale = 1;
			while (at < bytes.length && bytes[at] >= 128 && scale < 2 ** 49) {
				step += (bytes[at++] - 128) * scale;
				scale *= 128;
			}
			if (at >= bytes.length || bytes[at] >= 128) return;
			step += bytes[at++] * scale;
			value += step % 2 === 0 ? step / 2 : -(step + 1) / 2;
			if (value < 0 || value > MAX_MS * 2 + 1) return;
			this.raise(key, { ms: Math.floor(value / 2), exact: value % 2 === 1 });
		}
	}

	private checkedAgeAtMs = 0;

	/**
	 * Like forget(), for a save: ages are checked at most once a minute, and past the capacity a
	 * tenth more is forgotten (sorting at the bound on every save would cost each delivery ms).
	 */
	trim(cutoffMs: number, capacity: number, nowMs: number): void {
		const ageDue = nowMs - this.checkedAgeAtMs >= 60_000 || nowMs < this.checkedAgeAtMs;
		const full = this.versions.size > capacity;
		if (!ageDue && !full) return;
		if (ageDue) this.checkedAgeAtMs = nowMs;
		this.forget(cutoffMs, full ? Math.floor(capacity * 0.9) : capacity);
	}

	/** Forgets versions older than the cutoff, and the oldest beyond the capacity, now. */
	forget(cutoffMs: number, capacity: number): void {
		const byTime = [...this.versions.entries()].sort((a, b) => a[1].ms - b[1].ms);
		let drop = 0;
		while (drop < byTime.length && byTime[drop][1].ms < cutoffMs) drop++;
		drop = Math.max(drop, byTime.length - capacity);
		if (drop <= 0) return;
		this.forgottenUpTo = Math.max(this.forgottenUpTo, byTime[drop - 1][1].ms);
		this.rewrite(byTime.slice(drop));
	}

	pack(): string {
		return this.packed.toBase64();
	}
}
