import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { LeadEvent } from './events';

/** How many processed events are remembered per trigger node; the oldest are forgotten first. */
export const SEEN_EVENTS_LIMIT = 2000;

const KEY = 'seenEvents';

/**
 * The deduplication key the spec recommends (topic + id + timestamp), hashed so every
 * entry in static data has the same small size whatever the ids look like (96 bits: no
 * collision to fear among a few thousand keys).
 */
export function eventKey(event: LeadEvent): string {
	return createHash('sha256').update(`${event.topic}\n${event.id}\n${event.timestamp}`).digest('hex').slice(0, 24);
}

/** Keys in insertion order; adding beyond the limit forgets the oldest. */
class BoundedKeys {
	private readonly keys = new Set<string>();

	constructor(private readonly limit: number) {}

	has(key: string): boolean {
		return this.keys.has(key);
	}

	add(key: string): void {
		this.keys.delete(key);
		this.keys.add(key);
		while (this.keys.size > this.limit) {
			const oldest = this.keys.values().next().value;
			if (oldest === undefined) break;
			this.keys.delete(oldest);
		}
	}

	delete(key: string): void {
		this.keys.delete(key);
	}

	values(): string[] {
		return [...this.keys];
	}
}

/*
 * Process memory, per trigger node (and per test/production mode, which get separate
 * deliveries of the same events). n8n loads static data for every delivery and saves it
 * whole afterwards, so two deliveries handled at the same time each save a copy missing
 * the other's key. Keys remembered here close that window within one n8n process, and
 * are written back with every save; static data alone carries them across restarts.
 */
const rememberedInProcess = new Map<string, BoundedKeys>();
const inProgress = new Map<string, Set<string>>();

function processMemory(scope: string, limit: number): BoundedKeys {
	let keys = rememberedInProcess.get(scope);
	if (!keys) {
		keys = new BoundedKeys(limit);
		rememberedInProcess.set(scope, keys);
	}
	return keys;
}

/** What this process last wrote to static data, per scope: lets the common case append. */
const lastWritten = new Map<string, string>();

/**
 * Keys are kept in static data as one space-separated string, not an array: n8n wraps
 * static data in a proxy and reloads and saves it for every delivery, and a single string
 * keeps that cost flat however many keys are remembered.
 */
const SEPARATOR = ' ';

function storedKeys(raw: unknown): string[] {
	if (typeof raw === 'string') return raw === '' ? [] : raw.split(SEPARATOR);
	// the array form of earlier versions
	return Array.isArray(raw) ? raw.filter((key): key is string => typeof key === 'string') : [];
}

/** The events a trigger node has already turned into executions. */
export class SeenEvents {
	private readonly memory: BoundedKeys;

	constructor(
		private readonly nodeData: IDataObject,
		private readonly scope: string,
		private readonly limit = SEEN_EVENTS_LIMIT,
	) {
		this.memory = processMemory(scope, limit);
	}

	has(key: string): boolean {
		if (this.memory.has(key)) return true;
		const raw = this.nodeData[KEY];
		// Keys are fixed-length hex without the separator, so a substring match is a key match.
		return typeof raw === 'string' ? raw.includes(key) : storedKeys(raw).includes(key);
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

	/** Records the event as executed, in process memory and in static data. */
	remember(key: string): void {
		this.memory.add(key);
		const raw = this.nodeData[KEY];
		let keys: string[];
		if (typeof raw === 'string' && raw === lastWritten.get(this.scope)) {
			// Nobody else wrote since this process did: the stored keys already hold ours.
			keys = storedKeys(raw);
			keys.push(key);
		} else {
			// Another save (a concurrent delivery, a restart) came in between: merge.
			const merged = new BoundedKeys(this.limit);
			for (const stored of storedKeys(raw)) merged.add(stored);
			for (const recent of this.memory.values()) if (!merged.has(recent)) merged.add(recent);
			merged.add(key);
			keys = merged.values();
		}
		const packed = keys.slice(Math.max(0, keys.length - this.limit)).join(SEPARATOR);
		this.nodeData[KEY] = packed;
		lastWritten.set(this.scope, packed);
	}
}
