import type { IDataObject } from 'n8n-workflow';

import type { KeptRow } from '../../../nodes/shared/changes/fieldChanges';
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
		['number sent as text', 'value', 100, '100', false, { from: 100, to: '100' }],
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
