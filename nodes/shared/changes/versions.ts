import { createHash } from 'crypto';

/** Ledger of versions run, per lead: 16 hex key, 11 hex ms, `e` (exact) or `a`, a separator. */
export const LEDGER_ENTRY_BYTES = 29;

const KEY_LENGTH = 16;
const TIME_LENGTH = 11;
const SEPARATOR = ' ';
const ENTRY = /^[0-9a-f]{27}[ea]$/;

/** A version of a lead that ran: its time, and whether that is the lead's updatedAt (exact). */
export interface LeadVersion {
	ms: number;
	exact: boolean;
}

/** The lead id hashed, so every entry has the same small size whatever the ids look like. */
export function leadKey(leadId: string): string {
	return createHash('sha256').update(leadId).digest('hex').slice(0, KEY_LENGTH);
}

function packEntry(key: string, version: LeadVersion): string {
	const time = Math.max(0, Math.min(version.ms, 0xfffffffffff));
	return key + time.toString(16).padStart(TIME_LENGTH, '0') + (version.exact ? 'e' : 'a');
}

/** Per lead, the newest version remembered, with its packed entry (packing is per save). */
export class LeadVersions {
	private readonly versions = new Map<string, LeadVersion & { entry: string }>();

	/** the packed form of the last save, until a version changes (every delivery saves it) */
	private packed: string | undefined;

	/** newest version time (ms) ever forgotten */
	forgottenUpTo = 0;

	get(key: string): LeadVersion | undefined {
		return this.versions.get(key);
	}

	raise(key: string, version: LeadVersion): void {
		const known = this.versions.get(key);
		if (known && (known.ms > version.ms || (known.ms === version.ms && known.exact))) return;
		this.versions.set(key, { ...version, entry: packEntry(key, version) });
		this.packed = undefined;
	}

	merge(packed: unknown, forgottenUpTo: unknown): void {
		if (typeof packed === 'string' && packed !== '') {
			for (const entry of packed.split(SEPARATOR)) {
				if (!ENTRY.test(entry)) continue;
				this.raise(entry.slice(0, KEY_LENGTH), {
					ms: parseInt(entry.slice(KEY_LENGTH, KEY_LENGTH + TIME_LENGTH), 16),
					exact: entry.endsWith('e'),
				});
			}
		}
		if (typeof forgottenUpTo === 'number' && Number.isFinite(forgottenUpTo))
			this.forgottenUpTo = Math.max(this.forgottenUpTo, forgottenUpTo);
	}

	private checkedAgeAtMs = 0;

	/** Like forget(), but ages are checked at most once a minute (sorting is slow at the bound). */
	trim(cutoffMs: number, capacity: number, nowMs: number): void {
		const ageDue = nowMs - this.checkedAgeAtMs >= 60_000 || nowMs < this.checkedAgeAtMs;
		if (!ageDue && this.versions.size <= capacity) return;
		if (ageDue) this.checkedAgeAtMs = nowMs;
		this.forget(cutoffMs, capacity);
	}

	/** Forgets versions older than the cutoff, and the oldest beyond the capacity, now. */
	forget(cutoffMs: number, capacity: number): void {
		const byTime = [...this.versions.entries()].sort((a, b) => a[1].ms - b[1].ms);
		let drop = 0;
		while (drop < byTime.length && byTime[drop][1].ms < cutoffMs) drop++;
		drop = Math.max(drop, byTime.length - capacity);
		if (drop <= 0) return;
		for (const [key] of byTime.slice(0, drop)) this.versions.delete(key);
		this.packed = undefined;
		this.forgottenUpTo = Math.max(this.forgottenUpTo, byTime[drop - 1][1].ms);
	}

	pack(): string {
		this.packed ??= [...this.versions.values()].map(({ entry }) => entry).join(SEPARATOR);
		return this.packed;
	}
}
