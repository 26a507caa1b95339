/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import type { IDataObject } from 'n8n-workflow';

import { keptRowOf } from '../../../nodes/shared/changes/fieldChanges';
import { leadKey } from '../../../nodes/shared/changes/versions';
import {
	MAX_KEPT_VALUE_CHARS,
	MAX_WATCHED_BYTES,
	WATCHED_KEY,
	WatchedValues,
} from '../../../nodes/shared/changes/watchedValues';
import { POLL_WATCHED_VALUES } from '../../../nodes/PartnerLeadsPollingTrigger/pollWatch';
import { WATCHED_BYTES_PER_LEAD } from '../../../nodes/shared/figures';

/** The Polling Trigger's store of these values (the webhook trigger keeps the same form). */
function writeWatchedValues(
	nodeData: IDataObject,
	state: { values: WatchedValues; complete: boolean },
) {
	POLL_WATCHED_VALUES.save(nodeData, state, state.values.fields);
}

function readWatchedValues(nodeData: IDataObject, fields: readonly string[]) {
	const state = POLL_WATCHED_VALUES.read(nodeData, fields);
	if (!state) throw new Error('no watched values stored');
	return state;
}

/**
 * The watched values as static data holds them: per lead the newest version, bounded, and what
 * they cost. The figures printed here are those in docs/watched-fields.md.
 */

const ONE_FIELD = ['status'];
const FIVE_FIELDS = ['closeDate', 'industry', 'platform', 'status', 'value'];
const STATUSES = ['active', 'qualified', 'proposal', 'won', 'lost'];
const PLATFORMS = ['hubspot', 'salesforce', 'pipedrive', 'other'];
const INDUSTRIES = ['saas', 'fintech', 'healthcare', 'retail'];

/** A plausible lead: a status of 3 to 9 letters, a deal value, a picklist, a date, a custom picklist. */
function leadNumber(n: number): IDataObject {
	return {
		id: n.toString(16).padStart(24, '0'),
		status: STATUSES[n % STATUSES.length],
		value: (n % 500) * 100,
		platform: PLATFORMS[n % PLATFORMS.length],
		closeDate: `2025-${String((n % 12) + 1).padStart(2, '0')}-15`,
		customFields: { industry: INDUSTRIES[n % INDUSTRIES.length] },
	};
}

const T0 = Date.parse('2025-06-01T00:00:00.000Z');

function filled(fields: string[], leads: number): WatchedValues {
	const values = new WatchedValues(fields);
	for (let n = 0; n < leads; n++) {
		const lead = leadNumber(n);
		values.record(leadKey(String(lead.id)), {
			ms: T0 + n,
			row: keptRowOf(lead, fields, MAX_KEPT_VALUE_CHARS),
		});
	}
	return values;
}

/** The bytes of the state as n8n stores it (the node's static data as JSON), bound off. */
function storedBytes(fields: string[], leads: number): number {
	const values = filled(fields, leads);
	return JSON.stringify({ [WATCHED_KEY]: { fields, complete: true, ...values.pack() } }).length;
}

/** The bytes of the leads alone as n8n stores them: their packed form as JSON. */
function packedBytes(values: WatchedValues): number {
	return JSON.stringify(values.pack()).length;
}

/** The keys of the leads these tests keep (leadNumber 0 to 99,999), made once. */
let leadKeys: string[] | undefined;

/** How many of the tests' leads a copy holds. */
function heldCount(values: WatchedValues): number {
	leadKeys ??= Array.from({ length: 100_000 }, (_, n) => leadKey(String(leadNumber(n).id)));
	return leadKeys.filter((key) => values.get(key) !== undefined).length;
}

/** The leads kept, read back from their packed form by a fresh copy. */
function keptCount(values: WatchedValues): number {
	const copy = new WatchedValues(values.fields);
	copy.merge(values.pack());
	return heldCount(copy);
}

/**
 * Whether the bytes the values count in memory (those the bound is checked on) are within
 * `maxBytes`, seen through the bound itself: within it, forgetBeyond forgets nothing. Beyond it
 * the values forget leads, so probe values that are not needed afterwards.
 */
function countedWithin(values: WatchedValues, maxBytes: number): boolean {
	return values.forgetBeyond(maxBytes) === 0;
}

describe('WatchedValues: what the state costs', () => {
	const figures: string[] = [];

	afterAll(() => {
		process.stdout.write(`watched values, stored bytes:\n${figures.join('\n')}\n`);
	});

	it.each([
		['1 field (status)', ONE_FIELD],
		['5 fields (status, value, platform, closeDate, custom industry)', FIVE_FIELDS],
	])('%s: bytes per lead and totals at 1,000 / 10,000 / 50,000 leads', (what, fields) => {
		const totals = [1_000, 10_000, 50_000].map((leads) => storedBytes(fields, leads));
		const perLead = Math.round(totals[1] / 10_000);
		figures.push(
			`  ${what}: ${perLead} bytes a lead; ${totals.map((t) => t.toLocaleString('en')).join(' / ')}`,
		);
		// what the editor and the docs state (nodes/shared/figures.ts)
		expect(perLead).toBe(
			fields.length === 1 ? WATCHED_BYTES_PER_LEAD.oneField : WATCHED_BYTES_PER_LEAD.fiveFields,
		);
		// the sum of the entries as counted in memory is what is stored (within 200 bytes)
		expect(countedWithin(filled(fields, 10_000), totals[1] + 199)).toBe(true);
		expect(countedWithin(filled(fields, 10_000), totals[1] - 200)).toBe(false);
	});

	it(`is bounded: beyond ${MAX_WATCHED_BYTES.toLocaleString('en')} bytes the leads changed longest ago are forgotten`, () => {
		const values = filled(FIVE_FIELDS, 100_000);
		const state = { values, complete: true };
		const nodeData: IDataObject = {};
		writeWatchedValues(nodeData, state);
		expect(JSON.stringify(nodeData).length).toBeLessThanOrEqual(MAX_WATCHED_BYTES + 1_000);
		// the newest are kept, the oldest went
		expect(values.get(leadKey(leadNumber(99_999).id as string))).toBeDefined();
		expect(values.get(leadKey(leadNumber(0).id as string))).toBeUndefined();
		const kept = keptCount(values);
		expect(kept).toBeLessThan(100_000);
		expect(heldCount(readWatchedValues(nodeData, FIVE_FIELDS).values)).toBe(kept);
		figures.push(`  5 fields, 100,000 leads: ${kept.toLocaleString('en')} kept within the bound`);
	});

	it('50,000 leads with 5 fields fit in the bound without forgetting any', () => {
		const values = filled(FIVE_FIELDS, 50_000);
		const nodeData: IDataObject = {};
		writeWatchedValues(nodeData, { values, complete: true });
		expect(keptCount(values)).toBe(50_000);
		expect(keptCount(readWatchedValues(nodeData, FIVE_FIELDS).values)).toBe(50_000);
		expect(values.get(leadKey(leadNumber(0).id as string))).toBeDefined();
	});
});

describe('WatchedValues: versions and copies', () => {
	const key = leadKey('lead-1');

	it('keeps the newer version of a lead; an older one changes nothing', () => {
		const values = new WatchedValues(ONE_FIELD);
		values.record(key, { ms: 2, row: ['won'] });
		values.record(key, { ms: 1, row: ['open'] });
		expect(values.get(key)).toEqual({ ms: 2, row: ['won'] });
	});

	it('a copy merged in: per lead the newer version wins, whoever wrote it', () => {
		const mine = new WatchedValues(ONE_FIELD);
		mine.record(key, { ms: 5, row: ['won'] });
		mine.record(leadKey('lead-2'), { ms: 1, row: ['open'] });
		const theirs = new WatchedValues(ONE_FIELD);
		theirs.record(key, { ms: 4, row: ['open'] });
		theirs.record(leadKey('lead-2'), { ms: 3, row: ['lost'] });
		mine.merge(theirs.pack());
		expect(mine.get(key)).toEqual({ ms: 5, row: ['won'] });
		expect(mine.get(leadKey('lead-2'))).toEqual({ ms: 3, row: ['lost'] });
	});

	it('a run that did not start puts back the values before, unless newer came since', () => {
		const values = new WatchedValues(ONE_FIELD);
		const before = { ms: 1, row: ['open'] };
		values.record(key, { ms: 2, row: ['won'] });
		values.restore(key, { ms: 2, row: ['won'] }, before);
		expect(values.get(key)).toEqual(before);
		values.record(key, { ms: 3, row: ['lost'] });
		values.restore(key, { ms: 2, row: ['won'] }, before);
		expect(values.get(key)).toEqual({ ms: 3, row: ['lost'] });
	});

	it('a deleted lead is dropped, and its bytes with it', () => {
		const values = filled(ONE_FIELD, 3);
		const bytes = packedBytes(values);
		values.drop(leadKey(leadNumber(1).id as string));
		expect(keptCount(values)).toBe(2);
		expect(values.get(leadKey(leadNumber(1).id as string))).toBeUndefined();
		const bytesAfter = packedBytes(values);
		expect(bytesAfter).toBeLessThan(bytes);
		// and the count the bound is checked on fell with them: the same 3 leads count more
		expect(countedWithin(filled(ONE_FIELD, 3), bytesAfter)).toBe(false);
		expect(countedWithin(values, bytesAfter)).toBe(true);
		expect(keptCount(values)).toBe(2);
	});

	it('values kept for other fields do not count: a new choice of fields starts anew', () => {
		const nodeData: IDataObject = {};
		writeWatchedValues(nodeData, { values: filled(ONE_FIELD, 3), complete: true });
		expect(readWatchedValues(nodeData, ONE_FIELD)).toMatchObject({ complete: true });
		expect(keptCount(readWatchedValues(nodeData, ONE_FIELD).values)).toBe(3);
		const other = readWatchedValues(nodeData, FIVE_FIELDS);
		expect(keptCount(other.values)).toBe(0);
		expect(other.complete).toBe(false);
	});

	it('with no field watched, nothing is kept', () => {
		const nodeData: IDataObject = {};
		writeWatchedValues(nodeData, { values: filled(ONE_FIELD, 3), complete: true });
		writeWatchedValues(nodeData, { values: new WatchedValues([]), complete: false });
		expect(nodeData[WATCHED_KEY]).toBeUndefined();
	});

	it('values of any text survive the stored form', () => {
		const values = new WatchedValues(['notes']);
		const odd = 'line\nbreak "quoted" \\ tab\t ünïcödé 🎉';
		values.record(key, { ms: 7, row: [odd] });
		const nodeData: IDataObject = {};
		writeWatchedValues(nodeData, { values, complete: false });
		const back = readWatchedValues(JSON.parse(JSON.stringify(nodeData)) as IDataObject, ['notes']);
		expect(back.values.get(key)).toEqual({ ms: 7, row: [odd] });
	});

	it('keeps each distinct value once: values no lead holds any more leave the stored form', () => {
		const values = new WatchedValues(['value']);
		const keys = Array.from({ length: 1_000 }, (_, n) => leadKey(`lead-${n}`));
		keys.forEach((leadKey, n) => values.record(leadKey, { ms: n, row: [n * 100] }));
		expect(values.pack().values[0]).toHaveLength(1_000);
		keys.forEach((leadKey, n) => values.record(leadKey, { ms: 2_000 + n, row: [(n % 3) * 100] }));
		values.forgetBeyond(MAX_WATCHED_BYTES);
		expect([...values.pack().values[0]].sort()).toEqual([0, 100, 200]);
		const back = new WatchedValues(['value']);
		back.merge(JSON.parse(JSON.stringify(values.pack())));
		expect(keys.map((leadKey) => back.get(leadKey)?.row[0])).toEqual(
			keys.map((_, n) => (n % 3) * 100),
		);
	});

	it('takes in a damaged copy up to where it stops reading, and nothing of one of another form', () => {
		const source = filled(ONE_FIELD, 10);
		const { leads, values } = source.pack();
		const cut = new WatchedValues(ONE_FIELD);
		// 13 bytes a lead: key, version, one value; cut in the middle of the fifth
		cut.merge({
			leads: Buffer.from(leads, 'base64')
				.subarray(0, 13 * 4 + 7)
				.toString('base64'),
			values,
		});
		// the first four read, the fifth and after not
		const held = Array.from(
			{ length: 10 },
			(_, n) => cut.get(leadKey(String(leadNumber(n).id))) !== undefined,
		);
		expect(held).toEqual([true, true, true, true, false, false, false, false, false, false]);
		const other = new WatchedValues(ONE_FIELD);
		other.merge({ leads, values: [] });
		other.merge('key and values as text');
		expect(heldCount(other)).toBe(0);
	});
});
