import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isoTimeMs } from '../../shared/isoTime';
import { storedNumber } from '../../shared/state/storedNumber';
import { type NodeStore, StoreKind } from '../../shared/state/nodeStore';
import { registerNodeMemory } from '../../shared/state/processMemory';
import { PackedBytes } from '../../shared/state/packedBytes';

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
 * The events seen keep the first 5 bytes, compared only with the keys of the event's own ten
 * minutes (its time is part of what is hashed, so every delivery of it falls in the same ten
 * minutes). A new event taken for one seen: one in 3 x 10^8 at 3,600 events in ten minutes (6 a
 * second).
 */
const KEY_BYTES = 5;

const seenKey = (mark: EventMark) => mark.key.slice(0, KEY_BYTES * 2);

/**
 * Kept by ten minutes (forgotten whole, so a stored event needs no time of its own), stored as
 * one base64 string, oldest first: the period's number (4 bytes), how many events (2 bytes),
 * their keys. About 6.7 characters an event, whatever the ids look like.
 */
const PERIOD_SECONDS = 600;
const PERIOD_BYTES = 4;
const COUNT_BYTES = 2;
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

const HEADER_BYTES = PERIOD_BYTES + COUNT_BYTES;

/** Bytes a period takes stored: a header per MAX_COUNT keys, and its keys. */
const storedPeriodBytes = (keys: number) =>
	Math.ceil(keys / MAX_COUNT) * HEADER_BYTES + keys * KEY_BYTES;

/**
 * The stored bytes, periods ascending: an event of the newest period (nearly all of them) is
 * appended in place, an old period forgotten moves `start`.
 */
class PeriodLog {
	readonly packed = new PackedBytes(4096);
	private lastHeaderAt = -1;
	private lastPeriod = -1;

	/** False when the key cannot be appended (an earlier period, or a full count): make anew. */
	append(key: string, period: number): boolean {
		const packed = this.packed;
		const count =
			this.lastHeaderAt < 0 ? 0 : packed.bytes.readUInt16BE(this.lastHeaderAt + PERIOD_BYTES);
		if (period === this.lastPeriod && count < MAX_COUNT) {
			this.lastHeaderAt -= packed.room(KEY_BYTES);
			packed.bytes.writeUInt16BE(count + 1, this.lastHeaderAt + PERIOD_BYTES);
		} else if (period > this.lastPeriod) {
			packed.room(HEADER_BYTES + KEY_BYTES);
			this.lastHeaderAt = packed.used;
			this.lastPeriod = period;
			packed.bytes.writeUInt32BE(period, packed.used);
			packed.bytes.writeUInt16BE(1, packed.used + PERIOD_BYTES);
			packed.used += HEADER_BYTES;
		} else return false;
		packed.bytes.write(key, packed.used, KEY_BYTES, 'hex');
		packed.used += KEY_BYTES;
		packed.changed();
		return true;
	}

	/** The oldest period's bytes are forgotten. */
	forget(bytes: number): void {
		this.packed.start += bytes;
		this.packed.changed();
	}
}

/** One trigger node's remembered events, in process memory, kept by ten minutes. */
class RecentEvents {
	/**
	 * per period its keys in the order they came (periods ascending once `sorted`): a key is known
	 * within its ten minutes only
	 */
	private readonly periods = new Map<number, Set<string>>();
	private sorted = true;
	private newestPeriod = -1;
	/** keys in all periods */
	private count = 0;
	forgottenUpTo = 0;

	/** the stored bytes; undefined: made anew at the next save (an event of an earlier period) */
	private log: PeriodLog | undefined = new PeriodLog();

	has(mark: EventMark): boolean {
		return this.periods.get(periodOf(mark.time))?.has(seenKey(mark)) ?? false;
	}

	add(mark: EventMark): void {
		this.addKey(seenKey(mark), periodOf(mark.time));
	}

	private addKey(key: string, period: number): void {
		const keys = this.periods.get(period);
		if (keys?.has(key)) return;
		this.count++;
		if (keys) keys.add(key);
		else {
			if (period < this.newestPeriod) this.sorted = false;
			this.newestPeriod = Math.max(this.newestPeriod, period);
			this.periods.set(period, new Set([key]));
		}
		if (this.log && !this.log.append(key, period)) this.log = undefined;
	}

	/** Adds a stored copy (a restart or another writer's save). */
	merge(packed: string, forgottenUpTo: number): void {
		const bytes = Buffer.from(packed, 'base64');
		let at = 0;
		while (at + HEADER_BYTES <= bytes.length) {
			const period = bytes.readUInt32BE(at);
			const count = bytes.readUInt16BE(at + PERIOD_BYTES);
			at += HEADER_BYTES;
			for (let index = 0; index < count && at + KEY_BYTES <= bytes.length; index++) {
				this.addKey(bytes.toString('hex', at, at + KEY_BYTES), period);
				at += KEY_BYTES;
			}
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
			const forgotten = this.periods.get(period)?.size ?? 0;
			this.count -= forgotten;
			this.periods.delete(period);
			this.log?.forget(storedPeriodBytes(forgotten));
			this.forgottenUpTo = Math.max(this.forgottenUpTo, periodEnd(period));
		}
	}

	pack(): string {
		if (!this.log) {
			const log = new PeriodLog();
			for (const period of this.ascending())
				for (const key of this.periods.get(period) ?? []) log.append(key, period);
			this.log = log;
		}
		return this.log.packed.toBase64();
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
