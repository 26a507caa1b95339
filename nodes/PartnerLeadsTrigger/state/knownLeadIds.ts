import type { IDataObject } from 'n8n-workflow';

import type { LeftOver } from '../../shared/changes/idSketch';
import { IdSketch } from '../../shared/changes/idSketch';
import type { PackedIds } from '../../shared/changes/leadIds';
import { MAX_LEAD_ID_BYTES, packIds, packedBytes, unpackIds } from '../../shared/changes/leadIds';
import type { ListedLead } from '../../shared/changes/listedLead';
import { storedNumber } from '../../shared/changes/storedNumber';

/**
 * The lead ids the trigger knows, kept only while lead/delete is chosen: a lead known then and
 * not listed now was deleted, also while n8n was down (the service has no replay). Known are
 * the ids its last listing found (its baseline or its last check) and every lead a delivery or
 * a recovery ran since: a lead created after that listing and deleted while n8n was down is
 * found too.
 *
 * Every save of static data carries the listing, so its bytes are a delivery's cost. Up to
 * PACKED_LISTING_UP_TO_BYTES it is kept packed as read or written (leadIds.ts: 6,250 24-hex
 * ids); a larger one as a sketch of fixed size (idSketch.ts: 80 KB for 24-hex ids, whatever
 * the portal) while that is the smaller, which reads back up to SKETCH_NAMES_UP_TO differences
 * between two checks: leads deleted unseen, and leads taken out that it never held (created and
 * deleted between two checks, or created while the list was read). A listing with an id too
 * long for a sketch is kept packed up to MAX_LEAD_ID_BYTES; above it the ids are not kept and
 * deletes are not recovered (logged).
 */

/**
 * Leads run since the last listing that are kept beside it, newest kept: far more than a
 * default check interval (6 minutes) sees; 270 KB of 24-hex ids at most. Kept as a plain list
 * that grows by one per run: packing it again on every save would cost more than it saves.
 * The leads whose delete ran since a sketched listing are kept the same way (another 270 KB at
 * most). Both grow with the leads changed between two checks, not with the portal.
 */
export const MAX_IDS_RUN_SINCE_LISTING = 10_000;

/** A listing up to this many bytes packed is kept packed, a larger one as a sketch. */
export const PACKED_LISTING_UP_TO_BYTES = 100_000;

/** A listing's ids, and the newest createdAt among them (service time; undefined: none has one). */
export interface KeptListing {
	ids: string[];
	newestCreatedMs?: number;
}

/** The known leads not listed now, and about how many more a sketch could not name. */
export type Gone = LeftOver;

/** An id list that grows by one, newest kept, oldest dropped above the bound. */
class RecentIds {
	readonly ids = new Set<string>();

	/** as stored: appended to, made anew only when ids leave */
	list: string[] = [];

	add(id: string): void {
		if (this.ids.has(id)) return;
		this.ids.add(id);
		this.list.push(id);
		if (this.ids.size > MAX_IDS_RUN_SINCE_LISTING) this.ids.delete(this.list.shift() as string);
	}

	keepOnly(keep: (id: string) => boolean): void {
		for (const id of [...this.ids]) if (!keep(id)) this.ids.delete(id);
		this.list = [...this.ids];
	}

	clear(): void {
		this.ids.clear();
		this.list = [];
	}

	take(stored: unknown): void {
		if (Array.isArray(stored)) for (const id of stored) if (typeof id === 'string') this.add(id);
	}
}

/** The listing as a sketch, with what a check needs beside it. */
interface SketchedListing {
	/** the stored form, kept to be written as it is on every save */
	stored: IDataObject;
	sketch: IdSketch;
	newestCreatedMs: number | undefined;
}

export class KnownLeadIds {
	/** n8n's clock when listed (only tells two listings apart); 0: never listed */
	listedAtMs = 0;

	/** the listing packed; undefined: not kept packed (none listed yet, lead/delete not chosen, sketched, or too many) */
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
			this.unpacked ??= unpackIds(this.packed);
			for (const id of this.unpacked) if (!present.has(id)) gone.add(id);
		} else if (this.sketched) {
			const left = this.sketched.sketch.leftOver(this.takenOutOf(this.sketched, listed, present));
			for (const id of left.ids) if (!present.has(id)) gone.add(id);
			unread = left;
		}
		return { ids: [...gone], complete: unread.complete, unnamed: unread.unnamed };
	}

	/**
	 * What a check takes out of the sketch: the leads listed now that the sketched listing may
	 * hold (none created after its newest: they only use up room), and those whose delete ran.
	 */
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

	/** A lead ran (created or changed): it is known until a listing finds it, or its delete ran. */
	ran(id: string): void {
		this.runSince.add(id);
	}

	/** A lead's delete ran: a sketched listing no longer counts it (a packed one: `settled`). */
	deleteRan(id: string): void {
		if (this.sketched) this.deletedSince.add(id);
	}

	/**
	 * A new listing (none: stop keeping ids). The leads run since the last listing stay
	 * known while this one does not hold them and `settled` (their delete ran) does not say
	 * otherwise: a lead created while the list was read is not in it. Returns whether kept.
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
		const sketch = bytes > PACKED_LISTING_UP_TO_BYTES ? IdSketch.of(ids) : undefined;
		// long text ids make wide cells: packed stays while it is the smaller (up to its bound)
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
			...(this.kept && runSince.ids.size > 0 ? { idsRunSince: runSince.list } : {}),
			...(sketched && deletedSince.ids.size > 0 ? { idsDeletedSince: deletedSince.list } : {}),
		};
	}
}
