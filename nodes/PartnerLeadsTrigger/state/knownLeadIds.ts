import type { IDataObject } from 'n8n-workflow';

import type { PackedIds } from '../../shared/changes/leadIds';
import { MAX_LEAD_ID_BYTES, packIds, packedBytes, unpackIds } from '../../shared/changes/leadIds';
import { storedNumber } from '../../shared/changes/storedNumber';

/**
 * The lead ids the trigger knows, kept only while lead/delete is chosen: a lead known then and
 * not listed now was deleted, also while n8n was down (the service has no replay). Known are
 * the ids its last listing found (its baseline or its last check) and every lead a delivery or
 * a recovery ran since: a lead created after that listing and deleted while n8n was down is
 * found too. The listing is kept packed as read or written (leadIds.ts): deliveries carry it
 * through every save of static data without unpacking it; only a check unpacks it.
 * Above MAX_LEAD_ID_BYTES the ids are not kept and deletes are not recovered (logged).
 */

/**
 * Leads run since the last listing that are kept beside it, newest kept: far more than a
 * default check interval (6 minutes) sees; 270 KB of 24-hex ids at most. Kept as a plain list
 * that grows by one per run: packing it again on every save would cost more than it saves.
 */
export const MAX_IDS_RUN_SINCE_LISTING = 10_000;

export class KnownLeadIds {
	/** n8n's clock when listed (only tells two listings apart); 0: never listed */
	listedAtMs = 0;

	/** undefined: not kept (none listed yet, lead/delete not chosen, or too many) */
	private packed: PackedIds | undefined;

	/** false when the last listing had too many ids to keep */
	tracked = true;

	private unpacked: Set<string> | undefined;

	/** leads a delivery or recovery ran since the listing, oldest first */
	private readonly runSince = new Set<string>();

	/** runSince as stored: appended to, made anew only when ids leave */
	private runSinceList: string[] = [];

	/** Takes the stored listing if it is newer than the one held, and every lead run since. */
	merge(stored: IDataObject): void {
		if (Array.isArray(stored.idsRunSince))
			for (const id of stored.idsRunSince) if (typeof id === 'string') this.ran(id);
		const listedAtMs = storedNumber(stored.idsListedAt);
		if (listedAtMs <= this.listedAtMs) return;
		this.listedAtMs = listedAtMs;
		this.tracked = stored.idsTracked !== false;
		const ids = stored.listedIds;
		this.packed =
			this.tracked && typeof ids === 'object' && ids !== null && !Array.isArray(ids)
				? (ids as PackedIds)
				: undefined;
		this.unpacked = undefined;
	}

	/** The ids known (listed last time, or run since); undefined when not kept. */
	ids(): ReadonlySet<string> | undefined {
		if (!this.packed) return undefined;
		this.unpacked ??= unpackIds(this.packed);
		if (this.runSince.size === 0) return this.unpacked;
		return new Set([...this.unpacked, ...this.runSince]);
	}

	/** A lead ran (created or changed): it is known until a listing finds it, or its delete ran. */
	ran(id: string): void {
		if (this.runSince.has(id)) return;
		this.runSince.add(id);
		this.runSinceList.push(id);
		if (this.runSince.size <= MAX_IDS_RUN_SINCE_LISTING) return;
		this.runSince.delete(this.runSinceList.shift() as string);
	}

	/**
	 * A new listing's ids (none: stop keeping them). The leads run since the last listing stay
	 * known while this one does not hold them and `settled` (their delete ran) does not say
	 * otherwise: a lead created while the list was read is not in it. Returns whether kept.
	 */
	replace(ids: string[] | undefined, nowMs: number, settled: (id: string) => boolean): boolean {
		this.listedAtMs = Math.max(this.listedAtMs + 1, nowMs);
		this.unpacked = undefined;
		const packed = ids && packIds(ids);
		this.tracked = !packed || packedBytes(packed) <= MAX_LEAD_ID_BYTES;
		this.packed = packed && this.tracked ? packed : undefined;
		const listed = new Set(this.packed ? ids : []);
		for (const id of [...this.runSince])
			if (!this.packed || listed.has(id) || settled(id)) this.runSince.delete(id);
		this.runSinceList = [...this.runSince];
		return this.tracked;
	}

	/** What a save writes (the listing's packed object as it is: no copy, no re-packing). */
	stored(): IDataObject {
		return {
			idsListedAt: this.listedAtMs,
			idsTracked: this.tracked,
			...(this.packed ? { listedIds: this.packed } : {}),
			...(this.packed && this.runSince.size > 0 ? { idsRunSince: this.runSinceList } : {}),
		};
	}
}
