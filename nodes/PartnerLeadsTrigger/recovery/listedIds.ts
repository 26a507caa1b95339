import type { IDataObject } from 'n8n-workflow';

import type { PackedIds } from '../../shared/changes/leadIds';
import { packIds, packedBytes, unpackIds } from '../../shared/changes/leadIds';
import { storedNumber } from '../../shared/changes/storedNumber';

/**
 * The lead ids the trigger's last listing found (its baseline or its last check), kept only
 * while lead/delete is chosen: a lead listed then and not now was deleted, also while n8n was
 * down (the service has no replay). Kept packed as read or written (leadIds.ts): deliveries
 * carry it through every save of static data without unpacking it; only a check unpacks it.
 * Above MAX_LISTED_ID_BYTES the ids are not kept and deletes are not recovered (logged).
 */

/** The ids are kept while they take at most this much: static data is saved whole. */
export const MAX_LISTED_ID_BYTES = 1_000_000;

export class ListedIds {
	/** n8n's clock when listed (only tells two listings apart); 0: never listed */
	listedAtMs = 0;

	/** undefined: not kept (none listed yet, lead/delete not chosen, or too many) */
	private packed: PackedIds | undefined;

	/** false when the last listing had too many ids to keep */
	tracked = true;

	private unpacked: Set<string> | undefined;

	/** Takes the stored listing if it is newer than the one held. */
	merge(stored: IDataObject): void {
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

	/** The ids listed last time; undefined when not kept. */
	ids(): ReadonlySet<string> | undefined {
		if (!this.packed) return undefined;
		this.unpacked ??= unpackIds(this.packed);
		return this.unpacked;
	}

	/** A new listing's ids (none: stop keeping them). Returns whether they are kept. */
	replace(ids: string[] | undefined, nowMs: number): boolean {
		this.listedAtMs = Math.max(this.listedAtMs + 1, nowMs);
		this.unpacked = undefined;
		const packed = ids && packIds(ids);
		this.tracked = !packed || packedBytes(packed) <= MAX_LISTED_ID_BYTES;
		this.packed = packed && this.tracked ? packed : undefined;
		return this.tracked;
	}

	/** What a save writes (the packed object as it is: no copy, no re-packing). */
	stored(): IDataObject {
		return {
			idsListedAt: this.listedAtMs,
			idsTracked: this.tracked,
			...(this.packed ? { listedIds: this.packed } : {}),
		};
	}
}
