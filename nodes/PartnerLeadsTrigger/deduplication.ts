import { createHash, randomUUID } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { LeadEvent } from './events';
import { registerNodeMemory } from './processMemory';

/**
 * Duplicate and replay suppression for the events a trigger node turned into executions.
 *
 * Every executed event is remembered with its event time until it is older than the
 * Maximum Event Age, when the age check alone refuses it. At most SEEN_EVENTS_CAPACITY
 * events are remembered; beyond that the oldest are forgotten, and `forgottenUpTo` (the
 * newest event time ever forgotten) is raised so that no event at or before it is ever
 * accepted again: the trigger may then miss a late delivery, but never runs one twice.
 */

/** Events remembered per trigger node; with the default 72 h window, 3,333 events a day on average. */
export const SEEN_EVENTS_CAPACITY = 10_000;

/** One remembered event in static data: 16 hex key, 8 hex event time (seconds), one separator. */
const KEY_LENGTH = 16;
const SEPARATOR = ' ';
const STORE_KEY = 'recentEvents';

/** A processed event as remembered: its deduplication key and its event time. */
export interface EventMark {
	key: string;
	/** event time, whole seconds since the epoch */
	time: number;
}

/**
 * The key the service recommends deduplicating on (topic + id + timestamp), hashed so every
 * entry has the same small size whatever the ids look like. 64 bits: among 10,000 keys the
 * chance of any collision is below 1 in 10^11.
 */
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
	/** marks what this memory saved, so its own saves need no re-reading */
	readonly id = randomUUID();
	private saves = 0;

	/** packed entries sorted by event time, oldest first */
	private order: string[] = [];
	private readonly keys = new Set<string>();
	forgottenUpTo = 0;

	has(key: string): boolean {
		return this.keys.has(key);
	}

	get size(): number {
		return this.order.length;
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

	nextWriter(): string {
		this.saves++;
		return `${this.id}:${this.saves}`;
	}
}

interface StoredEvents {
	entries: string;
	forgottenUpTo: number;
	/** `<process id>:<counter>` of the save */
	writer: string;
}

function readStored(raw: unknown): StoredEvents | undefined {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
	const { entries, forgottenUpTo, writer } = raw as IDataObject;
	return {
		entries: typeof entries === 'string' ? entries : '',
		forgottenUpTo:
			typeof forgottenUpTo === 'number' && Number.isFinite(forgottenUpTo) ? forgottenUpTo : 0,
		writer: typeof writer === 'string' ? writer : '',
	};
}

/*
 * Process memory, per trigger node (and per test/production mode, which get separate
 * deliveries of the same events). n8n loads static data for every delivery and saves it
 * whole afterwards, so two deliveries handled at the same time each save a copy missing
 * the other's event. What this process remembers closes that gap and is written back with
 * every save; static data alone carries it across restarts.
 */
const memories = new Map<string, RecentEvents>();
const inProgress = new Map<string, Set<string>>();

/** The scopes of one trigger node (eventScope in delivery.ts): its test URL apart. */
function scopesOf(workflowId: string, nodeId: string): string[] {
	return [`${workflowId}:${nodeId}:production`, `${workflowId}:${nodeId}:test`];
}

registerNodeMemory('recentEvents', {
	get size() {
		return memories.size;
	},
	forget: (workflowId, nodeId) => {
		for (const scope of scopesOf(workflowId, nodeId)) memories.delete(scope);
	},
});
// Emptied by the deliveries themselves (release); a delivery still running keeps its claim.
registerNodeMemory('deliveriesInProgress', {
	get size() {
		return inProgress.size;
	},
	forget: () => undefined,
});

export type Recall = 'new' | 'seen' | 'forgotten';

export interface SeenEventsOptions {
	maxAgeSeconds: number;
	capacity?: number;
	nowMs?: () => number;
}

/** The events a trigger node has already turned into executions. */
export class SeenEvents {
	private readonly memory: RecentEvents;

	private readonly capacity: number;

	private readonly nowMs: () => number;

	constructor(
		private readonly nodeData: IDataObject,
		private readonly scope: string,
		private readonly options: SeenEventsOptions,
	) {
		this.capacity = options.capacity ?? SEEN_EVENTS_CAPACITY;
		this.nowMs = options.nowMs ?? Date.now;
		let memory = memories.get(scope);
		if (!memory) {
			memory = new RecentEvents();
			memories.set(scope, memory);
		}
		this.memory = memory;
		this.sync();
	}

	/** Takes in what static data holds beyond this process's memory. */
	private sync(): void {
		const stored = readStored(this.nodeData[STORE_KEY]);
		// What this memory saved is still in it (or was forgotten since, which raised
		// forgottenUpTo): nothing to read back.
		if (!stored || stored.writer.startsWith(`${this.memory.id}:`)) return;
		this.memory.merge(
			stored.entries === '' ? [] : stored.entries.split(SEPARATOR),
			stored.forgottenUpTo,
		);
	}

	/**
	 * 'seen': this event ran already. 'forgotten': it is at or before the newest event time
	 * the store had to forget, so it may have run: refused as a possible replay.
	 */
	recall(mark: EventMark): Recall {
		if (this.memory.has(mark.key)) return 'seen';
		return mark.time <= this.memory.forgottenUpTo ? 'forgotten' : 'new';
	}

	/**
	 * Marks the event as being processed by this delivery. False when another delivery of
	 * the same event is being processed right now: it may still fail, so this one must not
	 * be acknowledged as a duplicate either.
	 */
	claim(key: string): boolean {
		let keys = inProgress.get(this.scope);
		if (!keys) {
			keys = new Set();
			inProgress.set(this.scope, keys);
		}
		if (keys.has(key)) return false;
		keys.add(key);
		return true;
	}

	release(key: string): void {
		const keys = inProgress.get(this.scope);
		keys?.delete(key);
		if (keys?.size === 0) inProgress.delete(this.scope);
	}

	/**
	 * Writes what this process remembers into static data: another path of the trigger is
	 * about to have it saved whole (a recovery), and must not save an older copy.
	 */
	writeBack(): void {
		this.nodeData[STORE_KEY] = {
			entries: this.memory.pack(),
			forgottenUpTo: this.memory.forgottenUpTo,
			writer: this.memory.nextWriter(),
		};
	}

	/** Records the event as executed, in process memory and in static data. */
	remember(mark: EventMark): void {
		this.memory.add(mark);
		const cutoff = Math.floor(this.nowMs() / 1000) - this.options.maxAgeSeconds;
		this.memory.trim(cutoff, this.capacity);
		// A fresh object every time: n8n saves static data only when it sees an assignment.
		this.nodeData[STORE_KEY] = {
			entries: this.memory.pack(),
			forgottenUpTo: this.memory.forgottenUpTo,
			writer: this.memory.nextWriter(),
		};
	}
}
