import type { IDataObject } from 'n8n-workflow';

import { type LeftOver, IdSketch } from '../../shared/changes/idSketch';
import type { PackedIds } from '../../shared/changes/leadIds';
import {
	MAX_LEAD_ID_BYTES,
	PackedIdsBuilder,
	packIds,
	packedBytes,
	unpackIds,
} from '../../shared/changes/leadIds';
import type { ListedLead } from '../../shared/changes/listedLead';
import { storedNumber } from '../../shared/state/storedNumber';

/**
 * Lead ids the trigger knows (last listing plus leads run since), kept while lead/delete is
 * chosen: a known lead not listed now was deleted, also while n8n was down.
 *
 * Every save carries the listing, in the smaller of two forms: packed (leadIds.ts, up to
 * MAX_LEAD_ID_BYTES) or a fixed-size sketch (idSketch.ts: 60 KB for 24-hex ids, so from 3,750
 * leads); past MAX_LEAD_ID_BYTES a sketch however wide, else not kept (logged).
 */

/**
 * Leads run since the last listing, newest kept (160 KB of 24-hex ids at most, packed as the
 * listing is); deletes since a sketched listing likewise.
 */
export const MAX_IDS_RUN_SINCE_LISTING = 10_000;

/** A listing's ids, and the newest createdAt among them (service time; undefined: none has one). */
export interface KeptListing {
	ids: string[];
	newestCreatedMs?: number;
}

/** The known leads not listed now, and about how many more a sketch could not name. */
export type Gone = LeftOver;

/** An id list that grows by one, newest kept, oldest dropped above the bound; stored packed. */
class RecentIds {
	readonly ids = new Set<string>();

	/** the ids packed as they came; undefined once ids left, made anew at the next save */
	private packed: PackedIdsBuilder | undefined = new PackedIdsBuilder();

	add(id: string): void {
		if (this.ids.has(id)) return;
		this.ids.add(id);
		if (this.ids.size > MAX_IDS_RUN_SINCE_LISTING) {
			this.ids.delete(this.ids.values().next().value as string);
			this.packed = undefined;
		} else this.packed?.add(id);
	}

	keepOnly(keep: (id: string) => boolean): void {
		for (const id of [...this.ids]) if (!keep(id)) this.ids.delete(id);
		this.packed = undefined;
	}

	clear(): void {
		this.ids.clear();
		this.packed = new PackedIdsBuilder();
	}

	take(stored: unknown): void {
		for (const id of unpackIds(stored)) this.add(id);
	}

	stored(): PackedIds {
		this.packed ??= PackedIdsBuilder.of(this.ids);
		return this.packed.result();
	}
}

interface SketchedListing {
	/** the stored form, kept to be written as it is on every save */
	stored: IDataObject;
	sketch: IdSketch;
	newestCreatedMs: number | undefined;
}

export class KnownLeadIds {
	/** n8n's clock when listed (only tells two listings apart); 0: never listed */
	listedAtMs = 0;

	/** the listing packed; undefined if none, sketched, or not kept */
	private packed: PackedIds | undefined;

	/** the listing as a sketch, when it is too large to keep packed */
	private sketched: SketchedListing | undefined;

	/** false when the last listing had too many ids to keep */
	tracked = true;

	private unpacked: Set<string> | undefined;

	/** leads a delivery or recovery ran since the listing, oldest first */
	private readonly runSince = new RecentIds();

	/** leads whose delete ran since a sketched listing: taken out of it before it is read */
	private readonly deletedSince = new RecentIds();

	private get kept(): boolean {
		return this.packed !== undefined || this.sketched !== undefined;
	}

	/** Takes the stored listing if it is newer than the one held, and every lead run since. */
	merge(stored: IDataObject): void {
		this.runSince.take(stored.idsRunSince);
		const listedAtMs = storedNumber(stored.idsListedAt);
		// deletes since another listing would only use up this one's room
		if (listedAtMs >= this.listedAtMs) this.deletedSince.take(stored.idsDeletedSince);
		if (listedAtMs <= this.listedAtMs) return;
		this.listedAtMs = listedAtMs;
		this.tracked = stored.idsTracked !== false;
		const ids = stored.listedIds;
		this.packed =
			this.tracked && typeof ids === 'object' && ids !== null && !Array.isArray(ids)
				? (ids as PackedIds)
				: undefined;
		this.unpacked = undefined;
		const sketch = this.tracked ? IdSketch.from(stored.listedSketch) : undefined;
		this.sketched = sketch && {
			stored: stored.listedSketch as IDataObject,
			sketch,
			newestCreatedMs: storedNumber(stored.idsNewestCreatedAt) || undefined,
		};
	}

	/** The known leads not among these listed now; undefined when no ids are kept. */
	gone(listed: ListedLead[]): Gone | undefined {
		if (!this.kept) return undefined;
		const present = new Set(listed.map(({ id }) => id));
		const gone = new Set([...this.runSince.ids].filter((id) => !present.has(id)));
		let unread = { complete: true, unnamed: 0 };
		if (this.packed) {
			for (const id of this.listedPacked(this.packed)) if (!present.has(id)) gone.add(id);
		} else if (this.sketched) {
			const left = this.sketched.sketch.leftOver(this.takenOutOf(this.sketched, listed, present));
			for (const id of left.ids) if (!present.has(id)) gone.add(id);
			unread = left;
		}
		return { ids: [...gone], complete: unread.complete, unnamed: unread.unnamed };
	}

	/** Ids a check takes out of the sketch: leads listed now it may hold, and those deleted since. */
	private *takenOutOf(
		sketched: SketchedListing,
		listed: ListedLead[],
		present: Set<string>,
	): Iterable<string> {
		const newest = sketched.newestCreatedMs;
		for (const lead of listed)
			if (newest === undefined || lead.createdMs === undefined || lead.createdMs <= newest)
				yield lead.id;
		for (const id of this.deletedSince.ids) if (!present.has(id)) yield id;
	}

	/**
	 * A lead ran (created or changed): it is known until a listing finds it, or its delete ran. A
	 * packed listing that holds it knows it already (a sketch cannot tell: every lead is kept).
	 */
	ran(id: string): void {
		if (this.packed && this.listedPacked(this.packed).has(id)) return;
		this.runSince.add(id);
	}

	private listedPacked(packed: PackedIds): Set<string> {
		this.unpacked ??= unpackIds(packed);
		return this.unpacked;
	}

	/** A lead's delete ran: a sketched listing no longer counts it (a packed one: `settled`). */
	deleteRan(id: string): void {
		if (this.sketched) this.deletedSince.add(id);
	}

	/**
	 * A new listing (none: stop keeping ids). Leads run since stay known unless listed or settled:
	 * a lead created while the list was read is not in it. Returns whether ids are kept.
	 */
	replace(
		listing: KeptListing | undefined,
		nowMs: number,
		settled: (id: string) => boolean,
	): boolean {
		this.listedAtMs = Math.max(this.listedAtMs + 1, nowMs);
		this.unpacked = undefined;
		this.packed = undefined;
		this.sketched = undefined;
		this.tracked = true;
		if (listing) this.keep(listing);
		const listed = new Set(this.kept ? listing?.ids : []);
		this.runSince.keepOnly((id) => this.kept && !listed.has(id) && !settled(id));
		this.deletedSince.clear();
		return this.tracked;
	}

	private keep({ ids, newestCreatedMs }: KeptListing): void {
		const packed = packIds(ids);
		const bytes = packedBytes(packed);
		const sketch = bytes > IdSketch.smallestStoredBytes ? IdSketch.of(ids) : undefined;
		// packed stays while it is the smaller (up to its bound): long text ids make wide cells
		const sketchSmaller = sketch !== undefined && IdSketch.storedBytes(sketch.width) < bytes;
		if (sketch && (sketchSmaller || bytes > MAX_LEAD_ID_BYTES))
			this.sketched = { stored: { ...sketch.stored() }, sketch, newestCreatedMs };
		else if (bytes <= MAX_LEAD_ID_BYTES) this.packed = packed;
		else this.tracked = false;
	}

	/** What a save writes (the listing's packed object or sketch as it is: no copy, no re-packing). */
	stored(): IDataObject {
		const { runSince, deletedSince, sketched } = this;
		return {
			idsListedAt: this.listedAtMs,
			idsTracked: this.tracked,
			...(this.packed ? { listedIds: this.packed } : {}),
			...(sketched ? { listedSketch: sketched.stored } : {}),
			...(sketched?.newestCreatedMs ? { idsNewestCreatedAt: sketched.newestCreatedMs } : {}),
			...(this.kept && runSince.ids.size > 0 ? { idsRunSince: runSince.stored() } : {}),
			...(sketched && deletedSince.ids.size > 0 ? { idsDeletedSince: deletedSince.stored() } : {}),
		};
	}
}
