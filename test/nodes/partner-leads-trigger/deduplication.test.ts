/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import type { EventMark } from '../../../nodes/PartnerLeadsTrigger/state/seenEvents';
import { riceDecode, riceEncode } from '../../../nodes/PartnerLeadsTrigger/state/riceCoding';
import {
	DEFAULT_MAX_EVENT_AGE_HOURS,
	eventMark,
	FUTURE_ALLOWANCE_SECONDS,
	judgeEventAge,
	SEEN_EVENTS_CAPACITY,
	SeenEvents,
} from '../../../nodes/PartnerLeadsTrigger/state/seenEvents';
import type { LeadTopic } from '../../simulator';

const HOUR = 3600;
const WINDOW = DEFAULT_MAX_EVENT_AGE_HOURS * HOUR;
const NOW_MS = Date.parse('2026-03-10T12:00:00.000Z');
const NOW = NOW_MS / 1000;

/** The newest event time the store forgot, as saved in static data (what a restart reads). */
function storedForgottenUpTo(nodeData: IDataObject): number {
	return (nodeData.recentEvents as { forgottenUpTo: number }).forgottenUpTo;
}

function mark(index: number, timeSeconds: number, topic: LeadTopic = 'lead/update'): EventMark {
	return eventMark(
		{ id: `lead-${index}`, topic, timestamp: new Date(timeSeconds * 1000).toISOString() },
		timeSeconds,
	);
}

/** n8n's clock (Date.now) reads `ms` from now on; NOW_MS before each test. */
function clockAt(ms: number): void {
	jest.spyOn(Date, 'now').mockReturnValue(ms);
}

beforeEach(() => clockAt(NOW_MS));
afterEach(() => jest.restoreAllMocks());

/** A trigger node's view in a given process: its scope is its process memory. */
function seenIn(nodeData: IDataObject, scope: string) {
	return new SeenEvents(nodeData, scope, { maxAgeSeconds: WINDOW });
}

/**
 * Another process's save of these events (queue mode), as static data holds it (seenEvents.ts):
 * base64 of, per ten minutes, the period's number (4 bytes), its count (2 bytes) and the first 5
 * bytes of its keys, sorted, as Rice-coded gaps (riceCoding.ts, tested on its own).
 */
function savedElsewhere(marks: EventMark[]): IDataObject {
	const byPeriod = new Map<number, number[]>();
	for (const each of marks) {
		const period = Math.floor(each.time / 600);
		const keys = byPeriod.get(period) ?? [];
		keys.push(parseInt(each.key.slice(0, 10), 16));
		byPeriod.set(period, keys);
	}
	const parts = [...byPeriod.entries()].map(([period, keys]) => {
		const sorted = [...new Set(keys)].sort((a, b) => a - b);
		const head = Buffer.alloc(6);
		head.writeUInt32BE(period, 0);
		head.writeUInt16BE(sorted.length, 4);
		return Buffer.concat([head, riceEncode(sorted, 40)]);
	});
	return {
		byTenMinutes: Buffer.concat(parts).toString('base64'),
		forgottenUpTo: 0,
		writer: `${randomUUID()}:1`,
	};
}

/** Bytes of the stored events (JSON, as n8n saves them). */
function storedBytes(nodeData: IDataObject): number {
	return JSON.stringify((nodeData.recentEvents as { byTenMinutes: string }).byTenMinutes).length;
}

/** How many of these events a process reading the static data anew recalls as seen. */
function recalledAsSeen(nodeData: IDataObject, marks: EventMark[]): number {
	const restarted = seenIn(nodeData, randomUUID());
	return marks.filter((each) => restarted.recall(each) === 'seen').length;
}

describe('event age', () => {
	it('accepts the window from Maximum Event Age ago to 5 minutes ahead, and nothing else', () => {
		const at = (offsetSeconds: number) => new Date(NOW_MS + offsetSeconds * 1000).toISOString();
		expect(judgeEventAge(at(0), WINDOW).verdict).toBe('inWindow');
		expect(judgeEventAge(at(-WINDOW), WINDOW).verdict).toBe('inWindow');
		expect(judgeEventAge(at(-WINDOW - 1), WINDOW).verdict).toBe('tooOld');
		expect(judgeEventAge(at(-7 * 24 * HOUR), WINDOW).verdict).toBe('tooOld');
		expect(judgeEventAge(at(FUTURE_ALLOWANCE_SECONDS), WINDOW).verdict).toBe('inWindow');
		expect(judgeEventAge(at(FUTURE_ALLOWANCE_SECONDS + 1), WINDOW).verdict).toBe('inFuture');
		// without milliseconds, or with an offset: still the same instant
		expect(judgeEventAge('2026-03-10T12:00:00Z', WINDOW)).toEqual({
			verdict: 'inWindow',
			timeSeconds: NOW,
		});
		expect(judgeEventAge('2026-03-10T13:00:00+01:00', WINDOW)).toEqual({
			verdict: 'inWindow',
			timeSeconds: NOW,
		});
		for (const bad of ['', 'yesterday', '1', 'March 7, 2026', '2026-13-45T99:99:99Z']) {
			expect(judgeEventAge(bad, WINDOW).verdict).toBe('unreadable');
		}
	});
});

describe('SeenEvents', () => {
	it('remembers each executed event for the whole window, in static data across a restart', () => {
		const nodeData: IDataObject = {};
		const marks = Array.from({ length: 500 }, (_, index) =>
			mark(index, NOW - WINDOW + index * 500),
		);
		for (const each of marks) {
			const seen = seenIn(nodeData, randomUUID());
			expect(seen.recall(each)).toBe('new');
			seen.remember(each);
		}
		// a restart: a new process memory, only static data kept
		const restarted = seenIn(nodeData, randomUUID());
		for (const each of marks) expect(restarted.recall(each)).toBe('seen');
		expect(restarted.recall(mark(9999, NOW))).toBe('new');
		expect(storedForgottenUpTo(nodeData)).toBe(0);
		// at most 15 characters an event (1 or 2 here per ten minutes: a 6-byte header, their codes)
		expect(storedBytes(nodeData)).toBeLessThanOrEqual(Math.ceil((500 * 11) / 3) * 4 + 2);
	});

	it('forgets events once their ten minutes are older than the window (the age check refuses them from then on)', () => {
		const nodeData: IDataObject = {};
		const scope = randomUUID();
		const old = mark(1, NOW - 10 * HOUR);
		seenIn(nodeData, scope).remember(old);
		// ten minutes are forgotten whole, once all of them are older than the window
		const later = NOW_MS + (WINDOW - 10 * HOUR + 600 + 60) * 1000;
		clockAt(later);
		seenIn(nodeData, scope).remember(mark(2, later / 1000));
		expect(recalledAsSeen(nodeData, [old, mark(2, later / 1000)])).toBe(1);
		// should the window be widened later, the forgotten event is still refused
		expect(seenIn(nodeData, randomUUID()).recall(old)).toBe('forgotten');
	});

	it('beyond the capacity forgets the oldest ten minutes and refuses anything at or before them as a possible replay', () => {
		const scope = randomUUID();
		// 300 events more than the capacity, all within the window (one every 15 s over the last
		// 2 days, the window being 3), delivered out of order
		const count = SEEN_EVENTS_CAPACITY + 300;
		expect(count * 15).toBeLessThan(2 * 24 * HOUR);
		const marks = Array.from({ length: count }, (_, index) =>
			mark(index, NOW - 2 * 24 * HOUR + index * 15),
		);
		const shuffled = [...marks].sort((a, b) => (a.key < b.key ? -1 : 1));
		// Below the capacity every event is new and kept: those that came first ran in another
		// process, read here from its save (each save packs the whole store, so 10,300 saves in
		// one test would take seconds). The last 1,000 arrive here: 700 fill the store, 300 go past.
		const elsewhere = SEEN_EVENTS_CAPACITY - 700;
		const nodeData: IDataObject = { recentEvents: savedElsewhere(shuffled.slice(0, elsewhere)) };
		for (const each of shuffled.slice(elsewhere)) {
			const seen = seenIn(nodeData, scope);
			if (seen.recall(each) === 'new') seen.remember(each);
		}
		const seen = seenIn(nodeData, randomUUID());
		const states = marks.map((each) => seen.recall(each));
		// every event either ran and is remembered, or is refused: none could run twice
		expect(states.every((state) => state === 'seen' || state === 'forgotten')).toBe(true);
		// whole periods of ten minutes are forgotten (40 events each here): at most one below capacity
		const kept = states.filter((state) => state === 'seen').length;
		expect(kept).toBeLessThanOrEqual(SEEN_EVENTS_CAPACITY);
		expect(kept).toBeGreaterThan(SEEN_EVENTS_CAPACITY - 40);
		// the window shrank to the oldest remembered event: the newest kept are the ones remembered
		expect(states.slice(-kept).every((state) => state === 'seen')).toBe(true);
		const oldestKept = marks[count - kept].time;
		const forgottenUpTo = storedForgottenUpTo(nodeData);
		expect(forgottenUpTo).toBeLessThan(oldestKept);
		expect(seen.recall(mark(count + 1, forgottenUpTo))).toBe('forgotten');
		expect(seen.recall(mark(count + 2, oldestKept))).toBe('new');
		expect(seen.recall(mark(count + 3, NOW))).toBe('new');
	});

	it('at the stated bound holds 10,000 events in 67,000 bytes of static data', () => {
		const nodeData: IDataObject = {};
		const scope = randomUUID();
		// more events than it can hold, all inside the window, one every 25 s: 24 per ten minutes,
		// the fewest that fill the store within 72 hours (fewer keys in ten minutes code longer)
		const count = SEEN_EVENTS_CAPACITY + 300;
		const marks = Array.from({ length: count }, (_, index) =>
			mark(index, NOW - WINDOW + 100 + index * 25),
		);
		expect(marks[count - 1].time).toBeLessThanOrEqual(NOW);
		for (const each of marks) seenIn(nodeData, scope).remember(each);
		// whole periods go, so all but at most 23 of the capacity stay
		expect(SEEN_EVENTS_CAPACITY).toBe(10_000);
		const kept = recalledAsSeen(nodeData, marks);
		expect(kept).toBeGreaterThan(SEEN_EVENTS_CAPACITY - 24);
		// The promise: 10,000 events in 67,000 bytes (the keys coded in about 37 bits each, 8
		// characters per ten minutes: 432 in 72 hours).
		const statedBound = 67_000;
		expect(storedBytes(nodeData)).toBeLessThanOrEqual(statedBound);
		const total = Buffer.byteLength(JSON.stringify(nodeData));
		expect(total).toBeLessThan(statedBound + 200);
		console.log(
			`deduplication store at ${SEEN_EVENTS_CAPACITY} events: ${total} bytes of static data (JSON)`,
		);
	});

	it('knows a key within its ten minutes only: an event of other ten minutes with the same key is new', () => {
		const nodeData: IDataObject = {};
		const ran = mark(1, NOW - 3_600);
		seenIn(nodeData, randomUUID()).remember(ran);
		const restarted = seenIn(nodeData, randomUUID());
		expect(restarted.recall(ran)).toBe('seen');
		// the same key for an event of the ten minutes before or after (a hash collision)
		expect(restarted.recall({ key: ran.key, time: ran.time - 600 })).toBe('new');
		expect(restarted.recall({ key: ran.key, time: ran.time + 600 })).toBe('new');
		// any time within the same ten minutes is the same event's
		const periodStart = Math.floor(ran.time / 600) * 600;
		expect(restarted.recall({ key: ran.key, time: periodStart + 599 })).toBe('seen');
		// the first 5 bytes are what is kept: another event with those is seen within those ten minutes
		const sameFirstBytes = { key: `${ran.key.slice(0, 10)}ff`, time: ran.time };
		expect(sameFirstBytes.key).not.toBe(ran.key);
		expect(restarted.recall(sameFirstBytes)).toBe('seen');
	});

	it('merges saves made concurrently from the same loaded copy, and saves from another process', () => {
		const scope = randomUUID();
		const loaded: IDataObject = {};
		seenIn(loaded, scope).remember(mark(1, NOW - 100));
		// two deliveries load the same saved copy; each saves its own
		const first = structuredClone(loaded);
		const second = structuredClone(loaded);
		seenIn(first, scope).remember(mark(2, NOW - 50));
		seenIn(second, scope).remember(mark(3, NOW - 40));
		// the database keeps the last save (missing event 2); the next delivery writes it back
		const next = structuredClone(second);
		seenIn(next, scope).remember(mark(4, NOW - 30));
		const times = [0, NOW - 100, NOW - 50, NOW - 40, NOW - 30, NOW - 20];
		const restarted = seenIn(next, randomUUID());
		for (const index of [1, 2, 3, 4])
			expect(restarted.recall(mark(index, times[index]))).toBe('seen');

		// another process saved in between: its events are read back before this one saves
		const otherProcess = structuredClone(next);
		seenIn(otherProcess, randomUUID()).remember(mark(5, times[5]));
		seenIn(otherProcess, scope).remember(mark(6, NOW - 10));
		const final = seenIn(otherProcess, randomUUID());
		for (const index of [1, 2, 3, 4, 5])
			expect(final.recall(mark(index, times[index]))).toBe('seen');
	});

	it('lets one delivery of an event be processed at a time', () => {
		const seen = seenIn({}, randomUUID());
		expect(seen.claim('k')).toBe(true);
		expect(seen.claim('k')).toBe(false);
		seen.release('k');
		expect(seen.claim('k')).toBe(true);
	});
});

describe('the events seen as stored: keys sorted, as Rice-coded gaps', () => {
	const KEY_BITS = 40;
	const randomKeys = (count: number) => {
		const keys = new Set<number>([0, 2 ** KEY_BITS - 1]);
		while (keys.size < count) keys.add(Math.floor(Math.random() * 2 ** KEY_BITS));
		return [...keys].sort((a, b) => a - b);
	};

	it.each([1, 2, 23, 600, 3_600, 65_535])(
		'gives back %i keys exactly, in at most (40 - log2 n + 3) bits each',
		(count) => {
			const keys = randomKeys(count).slice(-count);
			const coded = riceEncode(keys, KEY_BITS);
			expect(riceDecode(coded, 0, count, KEY_BITS)).toEqual({ keys, end: coded.length });
			// n gaps below 2^40: each takes its low bits, a stop bit and its quotient in unary, and
			// the quotients add up to less than 2^40 / 2^lowBits = 2^ceil(log2 n) <= 2n
			const lowBits = Math.max(0, KEY_BITS - Math.ceil(Math.log2(count)));
			expect(coded.length).toBeLessThanOrEqual(Math.ceil((count * (lowBits + 3)) / 8));
			if (count >= 23) expect(coded.length).toBeLessThan(count * 5);
		},
	);

	it('reads codes one after another from their offsets, and a cut copy as damaged', () => {
		const first = randomKeys(50);
		const second = randomKeys(7).slice(-7);
		const both = Buffer.concat([riceEncode(first, KEY_BITS), riceEncode(second, KEY_BITS)]);
		const read = riceDecode(both, 0, 50, KEY_BITS);
		expect(read?.keys).toEqual(first);
		expect(riceDecode(both, read!.end, 7, KEY_BITS)).toEqual({ keys: second, end: both.length });
		expect(riceDecode(both.subarray(0, both.length - 2), read!.end, 7, KEY_BITS)).toBeUndefined();
		expect(riceDecode(Buffer.alloc(4, 0xff), 0, 3, KEY_BITS)).toBeUndefined();
	});

	it('keeps a period of more than 65,535 events (parts of 65,535 in static data) and reads it back whole', () => {
		const time = NOW - 100;
		const marks = Array.from({ length: 70_000 }, (_, index) => mark(index, time));
		const nodeData: IDataObject = { recentEvents: savedElsewhere(marks.slice(0, 40_000)) };
		const scope = randomUUID();
		seenIn(nodeData, scope);
		// another process's save of the rest, taken in by this one, which then saves all of it
		nodeData.recentEvents = savedElsewhere(marks.slice(40_000));
		seenIn(nodeData, scope).remember(mark(70_000, time));
		expect(recalledAsSeen(nodeData, [...marks, mark(70_000, time)])).toBe(70_001);
		expect(seenIn(nodeData, randomUUID()).recall(mark(70_001, time))).toBe('new');
	});
});
