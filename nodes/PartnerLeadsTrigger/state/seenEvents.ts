import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isoTimeMs } from '../../shared/isoTime';
import { storedNumber } from '../../shared/state/storedNumber';
import { type NodeStore, StoreKind } from '../../shared/state/nodeStore';
import { registerNodeMemory } from '../../shared/state/processMemory';
import { riceDecode, riceEncode } from './riceCoding';

/**
 * Duplicate and replay suppression: an event time outside the Maximum Event Age is refused, and
 * the events seen within it are remembered, at most SEEN_EVENTS_CAPACITY; nothing at or before
 * `forgottenUpTo` is accepted: an event may be missed, never run twice.
 */

/** Default Maximum Event Age: outlasts the delivery retries of webhook services (hours to a few days). */
export const DEFAULT_MAX_EVENT_AGE_HOURS = 72;

/** How far in the future an event time may be, for clocks that disagree a little. */
export const FUTURE_ALLOWANCE_SECONDS = 5 * 60;

export type EventAge =
	| { verdict: 'inWindow' | 'tooOld' | 'inFuture'; timeSeconds: number }
	| { verdict: 'unreadable' };

/** Event time in whole seconds since the epoch; undefined when it is not a date. */
export function eventTimeSeconds(timestamp: string): number | undefined {
	const ms = isoTimeMs(timestamp);
	return ms === undefined ? undefined : Math.floor(ms / 1000);
}

export function maxEventAgeSeconds(hours: unknown): number {
	const value = Number(hours);
	return Number.isFinite(value) && value > 0
		? Math.round(value * 3600)
		: DEFAULT_MAX_EVENT_AGE_HOURS * 3600;
}

export function judgeEventAge(timestamp: string, maxAgeSeconds: number): EventAge {
	const timeSeconds = eventTimeSeconds(timestamp);
	if (timeSeconds === undefined) return { verdict: 'unreadable' };
	const nowSeconds = Math.floor(Date.now() / 1000);
	if (timeSeconds < nowSeconds - maxAgeSeconds) return { verdict: 'tooOld', timeSeconds };
	if (timeSeconds > nowSeconds + FUTURE_ALLOWANCE_SECONDS)
		return { verdict: 'inFuture', timeSeconds };
	return { verdict: 'inWindow', timeSeconds };
}

/** Events remembered per trigger node; with the default 72 h window, 3,333 events a day on average. */
export const SEEN_EVENTS_CAPACITY = 10_000;

/** An event's key: 6 bytes of SHA-256 (runs in flight and deliveries in progress know it by them). */
const MARK_BYTES = 6;

/**
 * The events seen keep the first 5 bytes (as a number), compared only with the keys of the
 * event's own ten minutes (its time is part of what is hashed, so every delivery of it falls in
 * the same ten minutes). A new event taken for one seen: one in 3 x 10^8 at 3,600 events in ten
 * minutes (6 a second).
 */
const KEY_BITS = 40;

const seenKey = (mark: EventMark) => parseInt(mark.key.slice(0, KEY_BITS / 4), 16);

/**
 * Kept by ten minutes (forgotten whole, so a stored event needs no time of its own), stored as
 * one base64 string, oldest first: the period's number (4 bytes), how many events (2 bytes),
 * their keys sorted, as Rice-coded gaps (riceCoding.ts). About 5 characters an event at 6
 * events a second, 6.5 at one every 25 s, whatever the ids look like.
 */
const PERIOD_SECONDS = 600;
const PERIOD_BYTES = 4;
const COUNT_BYTES = 2;
const HEADER_BYTES = PERIOD_BYTES + COUNT_BYTES;
const MAX_COUNT = 0xffff;

/** A processed event as remembered: its deduplication key and its event time. */
export interface EventMark {
	key: string;
	/** event time, whole seconds since the epoch */
	time: number;
}

/** Hash of topic + id + timestamp (the service's dedup key). */
export function eventMark(event: LeadEvent, timeSeconds: number): EventMark {
	const digest = createHash('sha256')
		.update(`${event.topic}\n${event.id}\n${event.timestamp}`)
		.digest('hex');
	return { key: digest.slice(0, MARK_BYTES * 2), time: timeSeconds };
}

const periodOf = (seconds: number) => Math.max(0, Math.floor(seconds / PERIOD_SECONDS));
/** the last second of a period: what forgetting the period forgets up to */
const periodEnd = (period: number) => (period + 1) * PERIOD_SECONDS - 1;

/** Where `key` is or would go in the ascending keys. */
function placeOf(keys: number[], key: number): number {
	let low = 0;
	let high = keys.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (keys[middle] < key) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** Keys as stored: a header per MAX_COUNT keys, each followed by its keys' codes. */
function storedKeys(period: number, keys: number[]): Buffer {
	const parts: Buffer[] = [];
	for (let from = 0; from < keys.length; from += MAX_COUNT) {
		const chunk = keys.slice(from, from + MAX_COUNT);
		const header = Buffer.alloc(HEADER_BYTES);
		header.writeUInt32BE(period, 0);
		header.writeUInt16BE(chunk.length, PERIOD_BYTES);
		parts.push(header, riceEncode(chunk, KEY_BITS));
	}
	// a buffer of its own: a small one from Buffer.concat shares (and keeps) an 8 KB pool slab
	const stored = Buffer.alloc(parts.reduce((bytes, part) => bytes + part.length, 0));
	let at = 0;
	for (const part of parts) at += part.copy(stored, at);
	return stored;
}

/**
 * A period's keys, and how they are stored: `coded` holds the keys up to some save, `added` those
 * since, coded after it under a header of their own until they are a 32nd of the period (so a
 * save codes a few keys, not the whole period: 3,600 at 6 events a second).
 */
class PeriodKeys {
	/** ascending: known within their ten minutes only */
	keys: number[] = [];
	private added: number[] = [];
	private coded: Buffer | undefined;

	constructor(private readonly period: number) {}

	has(key: number): boolean {
		return this.keys[placeOf(this.keys, key)] === key;
	}

	/** False when it was there. */
	add(key: number): boolean {
		const place = placeOf(this.keys, key);
		if (this.keys[place] === key) return false;
		this.keys.splice(place, 0, key);
		this.added.splice(placeOf(this.added, key), 0, key);
		return true;
	}

	/** `keys`: ascending; the keys as one list with these (each once) are coded anew. */
	merge(keys: number[]): number {
		const merged: number[] = [];
		for (let left = 0, right = 0; left < this.keys.length || right < keys.length; ) {
			const next =
				right >= keys.length || (left < this.keys.length && this.keys[left] <= keys[right])
					? this.keys[left++]
					: keys[right++];
			if (merged[merged.length - 1] !== next) merged.push(next);
		}
		const more = merged.length - this.keys.length;
		if (more > 0) [this.keys, this.coded] = [merged, undefined];
		return more;
	}

	/** `whole`: the keys in one code (a period no longer the newest gets few keys more). */
	stored(whole: boolean): Buffer {
		const tooMany = this.added.length > Math.max(32, this.keys.length / 32);
		if (!this.coded || tooMany || (whole && this.added.length > 0))
			[this.coded, this.added] = [storedKeys(this.period, this.keys), []];
		if (this.added.length === 0) return this.coded;
		return Buffer.concat([this.coded, storedKeys(this.period, this.added)]);
	}
}

/** One trigger node's remembered events, in process memory, kept by ten minutes. */
class RecentEvents {
	/** periods ascending once `sorted` */
	private readonly periods = new Map<number, PeriodKeys>();
	private sorted = true;
	private newestPeriod = -1;
	/** keys in all periods */
	private count = 0;
	forgottenUpTo = 0;

	/** the stored bytes of the periods before `olderThan` (all but the newest), made once */
	private older: { bytes: Buffer; olderThan: number } | undefined;
	private packed: string | undefined;

	has(mark: EventMark): boolean {
		return this.periods.get(periodOf(mark.time))?.has(seenKey(mark)) ?? false;
	}

	add(mark: EventMark): void {
		const period = periodOf(mark.time);
		if (this.periodKeys(period).add(seenKey(mark))) this.changed(period, 1);
	}

	private periodKeys(period: number): PeriodKeys {
		let keys = this.periods.get(period);
		if (!keys) {
			if (period < this.newestPeriod) this.sorted = false;
			this.newestPeriod = Math.max(this.newestPeriod, period);
			keys = new PeriodKeys(period);
			this.periods.set(period, keys);
		}
		return keys;
	}

	/** A period changed or went: the older periods' bytes are made again unless it is the newest. */
	private changed(period: number, keys: number): void {
		this.count += keys;
		if (this.older && period < this.older.olderThan) this.older = undefined;
		this.packed = undefined;
	}

	/** Adds a stored copy (a restart or another writer's save). */
	merge(packed: string, forgottenUpTo: number): void {
		const bytes = Buffer.from(packed, 'base64');
		let at = 0;
		while (at + HEADER_BYTES <= bytes.length) {
			const period = bytes.readUInt32BE(at);
			const decoded = riceDecode(
				bytes,
				at + HEADER_BYTES,
				bytes.readUInt16BE(at + PERIOD_BYTES),
				KEY_BITS,
			);
			if (!decoded) break;
			const more = this.periodKeys(period).merge(decoded.keys);
			if (more > 0) this.changed(period, more);
			at = decoded.end;
		}
		this.forgottenUpTo = Math.max(this.forgottenUpTo, forgottenUpTo);
	}

	private ascending(): number[] {
		if (!this.sorted) {
			const entries = [...this.periods.entries()].sort((a, b) => a[0] - b[0]);
			this.periods.clear();
			for (const [period, keys] of entries) this.periods.set(period, keys);
			this.sorted = true;
		}
		return [...this.periods.keys()];
	}

	/**
	 * Forgets the periods older than the cutoff, then the oldest periods beyond the capacity (the
	 * newest period stays whatever its size: forgetting it would refuse every event of this period).
	 */
	trim(cutoffSeconds: number, capacity: number): void {
		const periods = this.ascending();
		for (const period of periods.slice(0, -1)) {
			if (periodEnd(period) >= cutoffSeconds && this.count <= capacity) break;
			const forgotten = this.periods.get(period)?.keys.length ?? 0;
			this.periods.delete(period);
			this.changed(period, -forgotten);
			this.forgottenUpTo = Math.max(this.forgottenUpTo, periodEnd(period));
		}
	}

	pack(): string {
		if (this.packed === undefined) {
			const periods = this.ascending().map((period) => this.periods.get(period)!);
			const newest = this.newestPeriod;
			if (this.older?.olderThan !== newest)
				this.older = {
					bytes: Buffer.concat(periods.slice(0, -1).map((keys) => keys.stored(true))),
					olderThan: newest,
				};
			const parts =
				periods.length > 0 ? [this.older.bytes, periods[periods.length - 1].stored(false)] : [];
			this.packed = Buffer.concat(parts).toString('base64');
		}
		return this.packed;
	}
}

/* Per node and mode (the test URL gets its own deliveries); memory covers concurrent saves. */
const SEEN_EVENTS = new StoreKind<RecentEvents>({
	key: 'recentEvents',
	name: 'recentEvents',
	modes: ['production', 'test'],
	create: () => new RecentEvents(),
	takeIn(memory, stored) {
		const byTenMinutes = typeof stored.byTenMinutes === 'string' ? stored.byTenMinutes : '';
		memory.merge(byTenMinutes, storedNumber(stored.forgottenUpTo));
	},
	stored: (memory) => ({ byTenMinutes: memory.pack(), forgottenUpTo: memory.forgottenUpTo }),
});

const inProgress = new Map<string, Set<string>>();
// Emptied by the deliveries themselves (release); a delivery still running keeps its claim.
registerNodeMemory('deliveriesInProgress', {
	get size() {
		return inProgress.size;
	},
	forget: () => undefined,
});

/** How many deliveries of a node are being handled now (unpublishing waits for them). */
export function deliveriesInProgress(scope: string): number {
	return inProgress.get(scope)?.size ?? 0;
}

export type Recall = 'new' | 'seen' | 'forgotten';

/** The events a trigger node has already turned into executions. */
export class SeenEvents {
	private readonly store: NodeStore<RecentEvents>;

	private readonly memory: RecentEvents;

	constructor(
		nodeData: IDataObject,
		private readonly scope: string,
		private readonly options: { maxAgeSeconds: number },
	) {
		this.store = SEEN_EVENTS.open(nodeData, scope);
		this.memory = this.store.memory;
	}

	/** 'forgotten': at or before the newest forgotten time, so it may have run (a replay). */
	recall(mark: EventMark): Recall {
		if (this.memory.has(mark)) return 'seen';
		return mark.time <= this.memory.forgottenUpTo ? 'forgotten' : 'new';
	}

	/**
	 * Marks the event as in progress. False when another delivery of it is in progress: that one
	 * may still fail, so this one must not be acknowledged as a duplicate.
	 */
	claim(key: string): boolean {
		const keys = inProgress.get(this.scope) ?? new Set<string>();
		inProgress.set(this.scope, keys);
		if (keys.has(key)) return false;
		keys.add(key);
		return true;
	}

	release(key: string): void {
		const keys = inProgress.get(this.scope);
		keys?.delete(key);
		if (keys?.size === 0) inProgress.delete(this.scope);
	}

	/** Writes memory into static data before another path (a recovery) saves it whole. */
	writeBack(): void {
		this.store.save();
	}

	/** Records the event as executed, in process memory and in static data. */
	remember(mark: EventMark): void {
		this.memory.add(mark);
		const cutoff = Math.floor(Date.now() / 1000) - this.options.maxAgeSeconds;
		this.memory.trim(cutoff, SEEN_EVENTS_CAPACITY);
		this.store.save();
	}
}
