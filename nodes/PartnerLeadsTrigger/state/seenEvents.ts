import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isoTimeMs } from '../../shared/isoTime';
import { storedNumber } from '../../shared/changes/storedNumber';
import { type NodeStore, StoreKind } from '../../shared/state/nodeStore';
import { registerNodeMemory } from '../../shared/state/processMemory';
import type { LedgerOptions } from './recoveryLedger';

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

/** One remembered event in static data: 16 hex key, 8 hex event time (seconds), one separator. */
const KEY_LENGTH = 16;
const SEPARATOR = ' ';

/** A processed event as remembered: its deduplication key and its event time. */
export interface EventMark {
	key: string;
	/** event time, whole seconds since the epoch */
	time: number;
}

/** Hash of topic + id + timestamp (the service's dedup key); 64 bits: no real collision risk. */
export function eventMark(event: LeadEvent, timeSeconds: number): EventMark {
	const digest = createHash('sha256')
		.update(`${event.topic}\n${event.id}\n${event.timestamp}`)
		.digest('hex');
	return { key: digest.slice(0, KEY_LENGTH), time: timeSeconds };
}

function packEntry(mark: EventMark): string {
	return mark.key + Math.max(0, Math.min(mark.time, 0xffffffff)).toString(16).padStart(8, '0');
}

/** Fixed-width hex: comparing the time parts as strings compares the times. */
function entryTime(entry: string): number {
	return parseInt(entry.slice(KEY_LENGTH), 16);
}

function byTime(a: string, b: string): number {
	const left = a.slice(KEY_LENGTH);
	const right = b.slice(KEY_LENGTH);
	return left < right ? -1 : left > right ? 1 : 0;
}

const ENTRY = /^[0-9a-f]{24}$/;

/** One trigger node's remembered events, in process memory. */
class RecentEvents {
	/** packed entries sorted by event time, oldest first */
	private order: string[] = [];
	private readonly keys = new Set<string>();
	forgottenUpTo = 0;

	has(key: string): boolean {
		return this.keys.has(key);
	}

	add(mark: EventMark): void {
		if (this.keys.has(mark.key)) return;
		const entry = packEntry(mark);
		// Events arrive roughly in time order: search from the newest end.
		let index = this.order.length;
		while (index > 0 && byTime(this.order[index - 1], entry) > 0) index--;
		this.order.splice(index, 0, entry);
		this.keys.add(mark.key);
		this.packed = undefined;
	}

	/** Adds stored entries in one pass (a restart or another writer's save). */
	merge(entries: string[], forgottenUpTo: number): void {
		let added = false;
		for (const entry of entries) {
			const key = entry.slice(0, KEY_LENGTH);
			if (!ENTRY.test(entry) || this.keys.has(key)) continue;
			this.keys.add(key);
			this.order.push(entry);
			added = true;
		}
		if (added) {
			this.order.sort(byTime);
			this.packed = undefined;
		}
		this.forgottenUpTo = Math.max(this.forgottenUpTo, forgottenUpTo);
	}

	/** Forgets events older than the cutoff, and the oldest beyond the capacity. */
	trim(cutoffSeconds: number, capacity: number): void {
		let drop = 0;
		while (drop < this.order.length && entryTime(this.order[drop]) < cutoffSeconds) drop++;
		drop = Math.max(drop, this.order.length - capacity);
		if (drop <= 0) return;
		for (const entry of this.order.slice(0, drop)) this.keys.delete(entry.slice(0, KEY_LENGTH));
		this.forgottenUpTo = Math.max(this.forgottenUpTo, entryTime(this.order[drop - 1]));
		this.order = this.order.slice(drop);
		this.packed = undefined;
	}

	/** the packed form of the last save, until the events change (every delivery saves it) */
	private packed: string | undefined;

	pack(): string {
		this.packed ??= this.order.join(SEPARATOR);
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
		const entries = typeof stored.entries === 'string' ? stored.entries : '';
		memory.merge(
			entries === '' ? [] : entries.split(SEPARATOR),
			storedNumber(stored.forgottenUpTo),
		);
	},
	stored: (memory) => ({ entries: memory.pack(), forgottenUpTo: memory.forgottenUpTo }),
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
		private readonly options: LedgerOptions,
	) {
		this.store = SEEN_EVENTS.open(nodeData, scope);
		this.memory = this.store.memory;
	}

	/** 'forgotten': at or before the newest forgotten time, so it may have run (a replay). */
	recall(mark: EventMark): Recall {
		if (this.memory.has(mark.key)) return 'seen';
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
