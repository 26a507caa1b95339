import { createHash } from 'crypto';

import { PackedBytes } from '../state/packedBytes';

/**
 * Ledger of versions run, per lead, stored as one base64 string of 12-byte entries: the lead's
 * key (6 bytes) and its version time in ms, doubled, plus 1 when it is exact (6 bytes).
 */
export const LEDGER_ENTRY_BYTES = 12;

/** Lead keys: 6 bytes of SHA-256 (a collision among 50,000 leads: about 1 in 200,000). */
export const LEAD_KEY_HEX = 12;

const KEY_BYTES = LEAD_KEY_HEX / 2;
const VALUE_BYTES = LEDGER_ENTRY_BYTES - KEY_BYTES;
/** 2^47 ms: the year 6429, so that the doubled time fits 48 bits */
const MAX_MS = 2 ** 47 - 1;

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

/** Per lead, the newest version remembered, each in its slot of the packed bytes. */
export class LeadVersions {
	private readonly versions = new Map<string, LeadVersion & { slot: number }>();

	/** the entries as stored, one slot per lead (a version raised is written in place) */
	private packed = new PackedBytes(1200);

	/** newest version time (ms) ever forgotten */
	forgottenUpTo = 0;

	get(key: string): LeadVersion | undefined {
		return this.versions.get(key);
	}

	raise(key: string, version: LeadVersion): void {
		const known = this.versions.get(key);
		if (known && (known.ms > version.ms || (known.ms === version.ms && known.exact))) return;
		const ms = Math.max(0, Math.min(Math.floor(version.ms), MAX_MS));
		const slot = known?.slot ?? this.versions.size;
		this.versions.set(key, { ms, exact: version.exact, slot });
		this.writeSlot(slot, key, ms, version.exact);
	}

	private writeSlot(slot: number, key: string, ms: number, exact: boolean): void {
		const at = slot * LEDGER_ENTRY_BYTES;
		const packed = this.packed;
		if (at === packed.used) {
			packed.room(LEDGER_ENTRY_BYTES);
			packed.used += LEDGER_ENTRY_BYTES;
		}
		packed.bytes.write(key, at, KEY_BYTES, 'hex');
		packed.bytes.writeUIntBE(ms * 2 + (exact ? 1 : 0), at + KEY_BYTES, VALUE_BYTES);
		packed.changed();
	}

	merge(packed: unknown, forgottenUpTo: unknown): void {
		if (typeof packed === 'string' && packed !== '') {
			const bytes = Buffer.from(packed, 'base64');
			for (let at = 0; at + LEDGER_ENTRY_BYTES <= bytes.length; at += LEDGER_ENTRY_BYTES) {
				const value = bytes.readUIntBE(at + KEY_BYTES, VALUE_BYTES);
				this.raise(bytes.toString('hex', at, at + KEY_BYTES), {
					ms: Math.floor(value / 2),
					exact: value % 2 === 1,
				});
			}
		}
		if (typeof forgottenUpTo === 'number' && Number.isFinite(forgottenUpTo))
			this.forgottenUpTo = Math.max(this.forgottenUpTo, forgottenUpTo);
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
		// the slots are written anew, the kept ones in the order they had
		const kept = byTime.slice(drop).sort((a, b) => a[1].slot - b[1].slot);
		this.versions.clear();
		this.packed = new PackedBytes(1200);
		for (const [key, version] of kept) this.raise(key, version);
	}

	pack(): string {
		return this.packed.toBase64();
	}
}
