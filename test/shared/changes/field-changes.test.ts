import type { IDataObject } from 'n8n-workflow';

import type { KeptRow } from '../../../nodes/shared/changes/fieldChanges';
import type { LeadFieldType } from '../../../nodes/shared/schema/fieldTypeNames';
import type { LeadField } from '../../../nodes/shared/schema/leadField';
import {
	compareWatchedFields,
	fieldValueOf,
	keptRowOf,
	keptValueOf,
	leadValueOf,
} from '../../../nodes/shared/changes/fieldChanges';

/** The kept values against the lead now, per field type, without a service. */

const MAX = 64;
const OPTIONS = { maxKeptChars: MAX };

/** A lead with one standard field and one custom field holding the value. */
function leadWith(fieldId: string, value: unknown, custom = false): IDataObject {
	const lead: IDataObject = { id: 'L1', status: 'active' };
	if (custom)
		lead.customFields = value === undefined ? {} : { [fieldId]: value as IDataObject[string] };
	else if (value !== undefined) lead[fieldId] = value as IDataObject[string];
	return lead;
}

/** The kept row of a lead whose field holds `value`. */
function kept(fieldId: string, value: unknown, custom = false): KeptRow {
	return keptRowOf(leadWith(fieldId, value, custom), [fieldId], MAX);
}

describe('compareWatchedFields: every field type', () => {
	const cases: Array<[string, string, unknown, unknown, boolean, object | undefined]> = [
		// [what, field, before, now, custom, change (undefined: unchanged)]
		['text', 'firstName', 'Ada', 'Grace', false, { from: 'Ada', to: 'Grace' }],
		['text unchanged', 'firstName', 'Ada', 'Ada', false, undefined],
		['text: case is a change', 'firstName', 'ada', 'Ada', false, { from: 'ada', to: 'Ada' }],
		['text cleared', 'firstName', 'Ada', '', false, { from: 'Ada', to: null }],
		['text removed from the lead', 'firstName', 'Ada', undefined, false, { from: 'Ada', to: null }],
		['text set', 'firstName', undefined, 'Ada', false, { from: null, to: 'Ada' }],
		['empty to absent: unchanged', 'firstName', '', undefined, false, undefined],
		['number', 'value', 100, 250.5, false, { from: 100, to: 250.5 }],
		['number unchanged', 'value', 100, 100, false, undefined],
		['number to zero', 'value', 100, 0, false, { from: 100, to: 0 }],
		// the same number written again as text: no change (issue 41), with or without the schema
		['number sent as text: unchanged', 'value', 100, '100', false, undefined],
		['picklist', 'platform', 'hubspot', 'salesforce', false, { from: 'hubspot', to: 'salesforce' }],
		[
			'picklist as { value, label }',
			'platform',
			'hubspot',
			{ value: 'hubspot', label: 'HubSpot' },
			false,
			undefined,
		],
		[
			'multi-select: a value added',
			'interests',
			['analytics'],
			['analytics', 'security'],
			true,
			{ from: ['analytics'], to: ['analytics', 'security'] },
		],
		[
			'multi-select: order does not matter',
			'interests',
			['security', 'analytics'],
			['analytics', 'security'],
			true,
			undefined,
		],
		[
			'multi-select emptied',
			'interests',
			['analytics'],
			[],
			true,
			{ from: ['analytics'], to: null },
		],
		[
			'date',
			'closeDate',
			'2025-06-30',
			'2025-07-31',
			false,
			{ from: '2025-06-30', to: '2025-07-31' },
		],
		['date unchanged', 'closeDate', '2025-06-30', '2025-06-30', false, undefined],
		[
			'date-time',
			'lastContactedAt',
			'2025-06-30T10:00:00.000Z',
			'2025-06-30T10:00:01.000Z',
			true,
			{ from: '2025-06-30T10:00:00.000Z', to: '2025-06-30T10:00:01.000Z' },
		],
		['boolean', 'isEnterprise', false, true, true, { from: false, to: true }],
		['boolean unchanged', 'isEnterprise', true, true, true, undefined],
		['boolean false to absent', 'isEnterprise', false, undefined, true, { from: false, to: null }],
		[
			'custom text',
			'referralNotes',
			'met at expo',
			'called back',
			true,
			{ from: 'met at expo', to: 'called back' },
		],
		['custom picklist', 'industry', 'saas', 'fintech', true, { from: 'saas', to: 'fintech' }],
	];

	it.each(cases)('%s', (_what, fieldId, before, now, custom, change) => {
		const result = compareWatchedFields(
			kept(fieldId, before, custom),
			leadWith(fieldId, now, custom),
			[fieldId],
			OPTIONS,
		);
		if (change === undefined) {
			expect(result.changedFields).toEqual([]);
			expect(result.changes).toEqual({});
		} else {
			expect(result.changedFields).toEqual([fieldId]);
			expect(result.changes[fieldId]).toEqual(change);
		}
		// what is kept from now on is the value now
		expect(result.row).toEqual(kept(fieldId, now, custom));
	});
});

describe('compareWatchedFields: several fields, unknown leads, labels', () => {
	const fields = ['platform', 'status', 'value'];
	const before = keptRowOf({ status: 'active', platform: 'hubspot', value: 10 }, fields, MAX);

	it('reports only the fields that changed, in the order of the fields', () => {
		const now = { status: 'won', platform: 'hubspot', value: 20, notes: 'changed too' };
		const result = compareWatchedFields(before, now, fields, OPTIONS);
		expect(result.changedFields).toEqual(['status', 'value']);
		expect(result.changes).toEqual({
			status: { from: 'active', to: 'won' },
			value: { from: 10, to: 20 },
		});
	});

	it('a change outside the watched fields is no change', () => {
		const now = { status: 'active', platform: 'hubspot', value: 10, notes: 'typo fixed' };
		expect(compareWatchedFields(before, now, fields, OPTIONS).changedFields).toEqual([]);
	});

	it('changed and changed back between two looks: unchanged', () => {
		// the values kept are those of the last look; what happened between is not seen
		const now = { status: 'active', platform: 'hubspot', value: 10 };
		expect(compareWatchedFields(before, now, fields, OPTIONS).changedFields).toEqual([]);
	});

	it('a lead whose values are not known: every field changed, none with `from`', () => {
		const result = compareWatchedFields(undefined, { status: 'won' }, fields, OPTIONS);
		expect(result.changedFields).toEqual(fields);
		expect(result.changes).toEqual({
			platform: { to: null },
			status: { to: 'won' },
			value: { to: null },
		});
	});

	it('gives picklist labels where the schema has them, for single and multiple values', () => {
		const labels = new Map([
			[
				'platform',
				new Map([
					['hubspot', 'HubSpot'],
					['salesforce', 'Salesforce'],
				]),
			],
			['interests', new Map([['analytics', 'Analytics']])],
		]);
		const result = compareWatchedFields(
			keptRowOf(
				{ platform: 'hubspot', customFields: { interests: ['analytics'] } },
				['interests', 'platform'],
				MAX,
			),
			{ platform: 'salesforce', customFields: { interests: ['analytics', 'unknown'] } },
			['interests', 'platform'],
			{ ...OPTIONS, labels },
		);
		expect(result.changes).toEqual({
			interests: {
				from: ['analytics'],
				to: ['analytics', 'unknown'],
				fromLabel: ['Analytics'],
				toLabel: ['Analytics', 'unknown'],
			},
			platform: { from: 'hubspot', to: 'salesforce', fromLabel: 'HubSpot', toLabel: 'Salesforce' },
		});
	});
});

describe('compareWatchedFields: values compared by their schema type', () => {
	function field(fieldId: string, type: LeadFieldType, options?: string[][]): LeadField {
		return {
			fieldId,
			label: fieldId,
			type,
			serviceType: type,
			required: false,
			creatable: true,
			updateable: true,
			custom: false,
			...(options ? { options: options.map(([value, label]) => ({ value, label })) } : {}),
		};
	}
	const schema = [
		field('closedAt', 'datetime'),
		field('startDate', 'date'),
		field('amount', 'number'),
		field('stage', 'picklist', [
			['won', 'Won'],
			['lost', 'Lost'],
		]),
		field('tags', 'multipicklist', [
			['a', 'Alpha'],
			['b', 'Beta'],
		]),
		field('phone', 'phone'),
	];
	const fields = schema.map((entry) => entry.fieldId);
	const typed = { ...OPTIONS, fields: new Map(schema.map((entry) => [entry.fieldId, entry])) };
	const before = keptRowOf(
		{
			closedAt: '2026-01-01T00:00:00Z',
			startDate: '2026-01-01',
			amount: '10',
			stage: 'won',
			tags: ['b', 'a'],
			phone: '0123',
		},
		fields,
		MAX,
	);

	it.each<[string, IDataObject, boolean]>([
		// [what the service writes again, the values now, whether typed values see a change]
		['the same instant with milliseconds', { closedAt: '2026-01-01T00:00:00.000Z' }, false],
		['the same instant in another zone', { closedAt: '2026-01-01T01:00:00+01:00' }, false],
		['a later instant', { closedAt: '2026-01-01T00:00:01Z' }, true],
		['a date as a date-time of that day', { startDate: '2026-01-01T00:00:00Z' }, false],
		['another date', { startDate: '2026-01-02' }, true],
		['a number written as text, then as a number', { amount: 10 }, false],
		['10.0 for 10', { amount: '10.0' }, false],
		['another number', { amount: 11 }, true],
		['a picklist label for its value', { stage: 'Won' }, false],
		['another picklist value', { stage: 'lost' }, true],
		['a multi-select in another order, by label', { tags: ['Alpha', 'b'] }, false],
		['a multi-select that gained a value', { tags: ['a'] }, true],
		['a phone without its leading 0', { phone: '123' }, true],
	])('%s', (_what, change, changed) => {
		const now = {
			closedAt: '2026-01-01T00:00:00Z',
			startDate: '2026-01-01',
			amount: '10',
			stage: 'won',
			tags: ['b', 'a'],
			phone: '0123',
			...change,
		};
		const result = compareWatchedFields(before, now, fields, typed);
		expect(result.changedFields).toEqual(changed ? Object.keys(change) : []);
		// the value kept from now on is the one the service wrote
		expect(result.row).toEqual(keptRowOf(now, fields, MAX));
	});

	it('without the schema at hand, an instant and a number written as text still compare as such; other text as text', () => {
		const untyped = keptRowOf(
			{ closedAt: '2026-01-01T00:00:00Z', amount: '10', phone: '0123' },
			['closedAt', 'amount', 'phone'],
			MAX,
		);
		const same = { closedAt: '2026-01-01T00:00:00.000Z', amount: 10, phone: '0123' };
		expect(
			compareWatchedFields(untyped, same, ['closedAt', 'amount', 'phone'], OPTIONS).changedFields,
		).toEqual([]);
		const changed = { closedAt: '2026-01-01T00:00:00.000Z', amount: '10', phone: '123' };
		expect(
			compareWatchedFields(untyped, changed, ['closedAt', 'amount', 'phone'], OPTIONS)
				.changedFields,
		).toEqual(['phone']);
	});

	it('values kept by the previous release (as the service wrote them, no type kept) read the same', () => {
		// the row as 0.1.0 stored it in static data: plain JSON values, a multi-select sorted
		const stored = JSON.parse(
			'["2026-01-01T00:00:00Z","2026-01-01","10","won",["a","b"],"0123"]',
		) as KeptRow;
		const now = {
			closedAt: '2026-01-01T00:00:00.000Z',
			startDate: '2026-01-01',
			amount: 10,
			stage: 'Won',
			tags: ['a', 'b'],
			phone: '0123',
		};
		expect(compareWatchedFields(stored, now, fields, typed).changedFields).toEqual([]);
		expect(compareWatchedFields(stored, { ...now, amount: 12 }, fields, typed).changes).toEqual({
			amount: { from: '10', to: 12 },
		});
	});
});

describe('long values: kept as a fingerprint', () => {
	const long = 'x'.repeat(200);

	it('a value over the bound is kept as a short fingerprint', () => {
		const value = keptValueOf(long, MAX);
		expect(value).toEqual({ fp: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) });
		expect(keptValueOf('short', MAX)).toBe('short');
	});

	it('an unchanged long value is unchanged; a changed one has `to` and no `from`', () => {
		const row = keptRowOf({ notes: long }, ['notes'], MAX);
		expect(compareWatchedFields(row, { notes: long }, ['notes'], OPTIONS).changedFields).toEqual(
			[],
		);
		const changed = compareWatchedFields(row, { notes: `${long}!` }, ['notes'], OPTIONS);
		expect(changed.changes).toEqual({ notes: { to: `${long}!` } });
	});

	it('a short value that becomes long still has its `from`', () => {
		const row = keptRowOf({ notes: 'short' }, ['notes'], MAX);
		expect(compareWatchedFields(row, { notes: long }, ['notes'], OPTIONS).changes).toEqual({
			notes: { from: 'short', to: long },
		});
	});
});

describe('reading a field', () => {
	it('custom fields from customFields, standard ones from the top', () => {
		const lead = { status: 'won', customFields: { industry: 'saas', status: 'custom' } };
		expect(fieldValueOf(lead, 'industry')).toBe('saas');
		expect(fieldValueOf({ status: 'won', customFields: {} }, 'status')).toBe('won');
	});

	it.each([
		[undefined, null],
		[null, null],
		['', null],
		[[], null],
		[Number.NaN, 'NaN'],
		[
			['b', 'a', ''],
			['a', 'b'],
		],
		[
			[{ value: 'x' }, 2],
			['2', 'x'],
		],
		[{ nested: true }, '{"nested":true}'],
	])('%p is compared as %p', (raw, value) => {
		expect(leadValueOf(raw)).toEqual(value);
	});
});
