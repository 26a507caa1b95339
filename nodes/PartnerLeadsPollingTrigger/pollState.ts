import type { IDataObject } from 'n8n-workflow';

import {
	MAX_LEAD_ID_BYTES,
	PACKED_LISTING_UP_TO_BYTES,
	type PackedIds,
	packIds,
	packedBytes,
	unpackIds,
} from '../shared/changes/leadIds';
import type { LeftOver } from '../shared/changes/idSketch';
import { storedNumber } from '../shared/state/storedNumber';
import { LeadVersions } from '../shared/changes/versions';
import { StaticStore } from '../shared/state/nodeStore';
import { SweepSketches } from './sweepSketches';

/**
 * Polling state, written only by the poll and saved with the execution it starts. The list is
 * read in slices, a sweep through it over several looks (docs/design/polling.md). Times are the
 * service's, except those that space the looks (n8n's clock).
 * - `since`: the sweep's watermark; only changes after it are judged.
 * - `presentUpTo`: while the first sweep (the baseline) lasts, versions up to it were there at
 *   activation and never run; a lead created up to `thereUpToMs` (a lower bound of it) is
 *   never new, even if the baseline missed it (a list whose order moved while it was read).
 * - `ran`: per lead, the version that ran above the watermark, so it does not run again.
 * - `ids`: the leads the last whole sweep listed, for creates and deletes; `seen` marks those
 *   this sweep listed again, `found` the leads it listed that `ids` lacks. Past
 *   PACKED_LISTING_UP_TO_BYTES, `sketches` instead.
 * - `maybeGone`: leads the last whole sweep listed and the one after did not, left to ask for
 *   (deleted, or moved in the list while it was read).
 * - `sweep`: where the sweep goes on (`resumeToken`), the service's clock when it began.
 * - `newest`: where new leads appear in the list, as the last whole sweep showed it.
 * - `requestTokens`, `tokensAtMs`: list requests the budget allows now.
 */

/** Leads whose version above the watermark is remembered; beyond it the watermark rises. */
export const POLL_RAN_CAPACITY = 5_000;

/** Where the list puts new leads: at its end, at its start, or no order shown. */
export type NewestEnd = 'end' | 'start' | 'unknown';

/** How the sweep under way saw the list's order so far (creation times, versions in list order). */
export interface OrderSeen {
	firstCreatedMs: number | undefined;
	lastCreatedMs: number | undefined;
	ascending: boolean;
	descending: boolean;
	/** versions never fell: the lead changed last is listed last (updates appear at the end too) */
	byChange: boolean;
	lastVersionMs: number | undefined;
}

export interface Sweep {
	/** undefined: the sweep starts at the start of the list */
	resumeToken: string | undefined;
	/** the service's clock when the sweep began (a lower bound) */
	startedMs: number;
	order: OrderSeen;
	/** leads the sweep listed so far */
	listed: number;
}

export interface PollState {
	since: number;
	presentUpTo: number | undefined;
	/** leads created up to it were there at activation: never new (service time, a lower bound) */
	thereUpToMs: number;
	ran: LeadVersions;
	/** undefined: not tracked (too many leads to keep their ids) */
	ids: LeadIdsSeen | undefined;
	/** a portal too large to keep its ids packed: the sweeps' ids sketched */
	sketches: SweepSketches | undefined;
	/** listed by the last whole sweep and not by the next, so maybe deleted: asked for first */
	maybeGone: string[];
	sweep: Sweep;
	/** `resumeToken`: where the list ended at the last look, for `end` */
	newest: { end: NewestEnd; resumeToken: string | undefined };
	/** the newest version listed so far: the service's clock is at least this */
	newestVersionMs: number;
	requestTokens: number;
	tokensAtMs: number;
}

/** The ids the last whole sweep listed, those this sweep listed again, and the new ones. */
export class LeadIdsSeen {
	private readonly index = new Map<string, number>();

	private constructor(
		/** false: no whole sweep before this one kept its ids (the baseline, or too many) */
		readonly ofLastSweep: boolean,
		private readonly packed: PackedIds,
		ids: Iterable<string>,
		private readonly seenBits: Buffer,
		readonly found: Set<string>,
	) {
		let at = 0;
		for (const id of ids) this.index.set(id, at++);
	}

	/** For a sweep after none that kept its ids: it only collects them. */
	static empty(): LeadIdsSeen {
		return new LeadIdsSeen(false, {}, [], Buffer.alloc(0), new Set());
	}

	static read(stored: IDataObject): LeadIdsSeen | undefined {
		if (stored.idsTracked !== true) return undefined;
		const ids = unpackIds(stored.ids);
		const bits = Buffer.alloc(Math.ceil(ids.size / 8));
		Buffer.from(String(stored.seen ?? ''), 'base64').copy(bits);
		const packed = (stored.ids ?? {}) as PackedIds;
		const ofLastSweep = stored.idsOfLastSweep === true;
		return new LeadIdsSeen(ofLastSweep, packed, ids, bits, unpackIds(stored.found));
	}

	/** Whether the last whole sweep listed it. */
	has(id: string): boolean {
		return this.index.has(id);
	}

	/** Listed by this sweep. */
	listed(id: string): void {
		const at = this.index.get(id);
		if (at === undefined) this.found.add(id);
		else this.seenBits[at >> 3] |= 1 << (at & 7);
	}

	/** Listed by the last whole sweep and not by this one. */
	unseen(): string[] {
		const unseen: string[] = [];
		for (const [id, at] of this.index)
			if ((this.seenBits[at >> 3] & (1 << (at & 7))) === 0) unseen.push(id);
		return unseen;
	}

	/** This sweep's ids, for the next sweep: those listed again and those found. */
	swept(): LeadIdsSeen {
		const ids = this.ofThisSweep();
		const bits = Buffer.alloc(Math.ceil(ids.size / 8));
		return new LeadIdsSeen(true, packIds(ids), ids, bits, new Set());
	}

	/** Kept as sketches from now on: too many to keep packed (undefined: an id too long for one). */
	sketched(): SweepSketches | undefined {
		return SweepSketches.of(this.ofLastSweep ? this.index.keys() : undefined, this.ofThisSweep());
	}

	/** Whether the ids take more than PACKED_LISTING_UP_TO_BYTES packed. */
	get tooManyToPack(): boolean {
		return packedBytes(this.packed) + packedBytes(packIds(this.found)) > PACKED_LISTING_UP_TO_BYTES;
	}

	private ofThisSweep(): Set<string> {
		const ids = new Set(this.found);
		for (const [id, at] of this.index)
			if ((this.seenBits[at >> 3] & (1 << (at & 7))) !== 0) ids.add(id);
		return ids;
	}

	/** The stored form; undefined when it is past the bound. */
	stored(): IDataObject | undefined {
		const found = packIds(this.found);
		if (packedBytes(this.packed) + packedBytes(found) > MAX_LEAD_ID_BYTES) return undefined;
		return {
			idsOfLastSweep: this.ofLastSweep,
			ids: this.packed,
			seen: this.seenBits.toString('base64'),
			found,
		};
	}
}

/**
 * The leads the last whole sweep listed and this one did not, when it ends with these leads
 * listed (`sweepIds` by its last slice, `alsoIds` by the same look elsewhere); undefined when the
 * ids are not kept, or no whole sweep before this one kept them.
 */
export function notListedAgain(
	state: PollState,
	sweepIds: string[],
	alsoIds: string[],
): LeftOver | undefined {
	if (state.sketches) return state.sketches.unlistedAfter(sweepIds);
	if (!state.ids?.ofLastSweep) return undefined;
	const listedNow = new Set([...sweepIds, ...alsoIds]);
	const ids = state.ids.unseen().filter((id) => !listedNow.has(id));
	return { ids, complete: true, unnamed: 0 };
}

const NO_ORDER_SEEN: OrderSeen = {
	firstCreatedMs: undefined,
	lastCreatedMs: undefined,
	ascending: true,
	descending: true,
	byChange: true,
	lastVersionMs: undefined,
};

/** A sweep from the start of the list, begun at the service's clock `startedMs`. */
export function newSweep(startedMs: number): Sweep {
	return {
		resumeToken: undefined,
		startedMs,
		order: { ...NO_ORDER_SEEN },
		listed: 0,
	};
}

function orderOf(stored: unknown): OrderSeen {
	const order = (stored ?? {}) as IDataObject;
	const ms = (value: unknown) => (typeof value === 'number' ? value : undefined);
	return {
		firstCreatedMs: ms(order.firstCreatedMs),
		lastCreatedMs: ms(order.lastCreatedMs),
		ascending: order.ascending !== false,
		descending: order.descending !== false,
		byChange: order.byChange !== false,
		lastVersionMs: ms(order.lastVersionMs),
	};
}

const optionalNumber = (value: unknown) => (typeof value === 'number' ? value : undefined);
const optionalToken = (value: unknown) => (typeof value === 'string' ? value : undefined);

function readState(stored: IDataObject): PollState {
	const ran = new LeadVersions();
	ran.merge(stored.ran, undefined);
	const sweep = (stored.sweep ?? {}) as IDataObject;
	const newest = (stored.newest ?? {}) as IDataObject;
	const end = newest.end === 'end' || newest.end === 'start' ? newest.end : 'unknown';
	return {
		since: storedNumber(stored.since),
		presentUpTo: optionalNumber(stored.presentUpTo),
		thereUpToMs: storedNumber(stored.thereUpToMs),
		ran,
		ids: LeadIdsSeen.read(stored),
		sketches: SweepSketches.read(stored),
		maybeGone: Array.isArray(stored.maybeGone) ? stored.maybeGone.map(String) : [],
		sweep: {
			resumeToken: optionalToken(sweep.resumeToken),
			startedMs: storedNumber(sweep.startedMs),
			order: orderOf(sweep.order),
			listed: storedNumber(sweep.listed),
		},
		newest: { end, resumeToken: optionalToken(newest.resumeToken) },
		newestVersionMs: storedNumber(stored.newestVersionMs),
		requestTokens: storedNumber(stored.requestTokens),
		tokensAtMs: storedNumber(stored.tokensAtMs),
	};
}

/** `ran` forgets what the watermark covers and the oldest past capacity (the watermark rises). */
function storedState(state: PollState): IDataObject {
	state.ran.forget(state.since, POLL_RAN_CAPACITY);
	const ids = state.ids?.stored();
	const { sweep } = state;
	return {
		clock: 'service',
		since: Math.max(state.since, state.ran.forgottenUpTo),
		...(state.presentUpTo === undefined ? {} : { presentUpTo: state.presentUpTo }),
		thereUpToMs: state.thereUpToMs,
		ran: state.ran.pack(),
		idsTracked: ids !== undefined,
		...(ids ?? {}),
		...(state.sketches?.stored() ?? {}),
		...(state.maybeGone.length > 0 ? { maybeGone: state.maybeGone } : {}),
		sweep: {
			...(sweep.resumeToken === undefined ? {} : { resumeToken: sweep.resumeToken }),
			startedMs: sweep.startedMs,
			order: { ...sweep.order } as IDataObject,
			listed: sweep.listed,
		},
		newest: { ...state.newest } as IDataObject,
		newestVersionMs: state.newestVersionMs,
		requestTokens: state.requestTokens,
		tokensAtMs: state.tokensAtMs,
	};
}

/** The poll's state; none before the first poll (the baseline). */
export const POLL_STATE = new StaticStore<PollState, PollState>({
	key: 'polling',
	name: 'pollState',
	read: readState,
	stored: storedState,
});
