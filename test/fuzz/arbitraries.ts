/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import fc from 'fast-check';
import { STANDARD_LEAD_FIELD_IDS } from '../../nodes/shared/schema/leadSchema';

/**
 * Generators shared by the property-based tests: lead schemas in every shape a schema answer may take
 * that the client must accept (and a good deal it should merely survive), and item values
 * as workflows produce them.
 */

/** One seed for every property, so a failure reproduces; override with FUZZ_SEED to explore. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20240521);

/** Scales numRuns (FUZZ_RUNS_FACTOR=10 for a longer local exploration). */
export function runs(base: number): number {
	const factor = Number(process.env.FUZZ_RUNS_FACTOR ?? 1);
	return Math.max(1, Math.round(base * (Number.isFinite(factor) && factor > 0 ? factor : 1)));
}

export const CANONICAL_TYPES = [
	'string',
	'textarea',
	'email',
	'phone',
	'url',
	'number',
	'currency',
	'boolean',
	'date',
	'datetime',
	'picklist',
	'multipicklist',
] as const;

/**
 * Type names no alias table can mean: property names every object inherits come first,
 * because a lookup in a plain object finds them.
 */
export const UNKNOWN_TYPES = [
	'constructor',
	'__proto__',
	'toString',
	'valueOf',
	'hasOwnProperty',
	'isPrototypeOf',
	'__defineGetter__',
	'geopoint',
	'lookup',
	'formula',
	'rich text',
	'',
] as const;

/** Ids that break naive code: inherited property names, empty and blank, dots, unicode, reserved lead keys. */
export const ODD_FIELD_IDS = [
	'__proto__',
	'constructor',
	'prototype',
	'toString',
	'hasOwnProperty',
	'valueOf',
	'__defineSetter__',
	'',
	' ',
	'a.b',
	'a.b.c',
	'.',
	'customFields',
	'customFields.x',
	'id',
	'status',
	'createdAt',
	'data',
	'Ünïcødé',
	'名前',
	'emoji💥',
	'rtl\u202Eevil',
	'zero\u200Bwidth',
	'x'.repeat(300),
] as const;

const STANDARD_IDS = STANDARD_LEAD_FIELD_IDS;

export const fieldIdArb: fc.Arbitrary<string> = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(...ODD_FIELD_IDS) },
	{ weight: 3, arbitrary: fc.constantFrom(...STANDARD_IDS) },
	{ weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
	{ weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }) },
	{ weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }) },
);

/** What a `type` may be on the wire: canonical, aliased, in another case, unknown, or not a string at all. */
export const typeArb: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 5, arbitrary: fc.constantFrom(...CANONICAL_TYPES) },
	{
		weight: 2,
		arbitrary: fc.constantFrom(
			'text',
			'integer',
			'checkbox',
			'select',
			'multi_select',
			'Date-Time',
			' PICKLIST ',
			'enum',
		),
	},
	{ weight: 3, arbitrary: fc.constantFrom(...UNKNOWN_TYPES) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
	{ weight: 1, arbitrary: fc.constantFrom(null, 42, true, {}, ['picklist'], undefined) },
);

const optionTextArb: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(
		'gold',
		'Silver',
		'a,b',
		' padded ',
		'',
		'__proto__',
		'constructor',
		'hubspot',
		'HubSpot',
		'💎',
	),
	fc.string({ maxLength: 8 }),
);

/** One picklist item in any shape the service may send (strings or {value,label}), plus broken ones. */
export const optionItemArb: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 4, arbitrary: fc.record({ value: optionTextArb, label: optionTextArb }) },
	{ weight: 2, arbitrary: fc.record({ value: optionTextArb }) },
	{ weight: 3, arbitrary: optionTextArb },
	{ weight: 1, arbitrary: fc.record({ label: optionTextArb }) },
	{ weight: 1, arbitrary: fc.record({ id: optionTextArb, name: optionTextArb }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			null,
			7,
			true,
			[],
			{},
			{ value: null },
			{ value: { nested: 1 } },
			{ value: 3, label: false },
		),
	},
);

const flagArb: fc.Arbitrary<unknown> = fc.constantFrom(
	true,
	false,
	'true',
	'false',
	undefined,
	null,
	1,
	0,
	'yes',
);

/** One `unifiedFields` entry: mostly plausible, sometimes not an entry at all. */
export const schemaEntryArb: fc.Arbitrary<unknown> = fc.oneof(
	{
		weight: 12,
		arbitrary: fc.record(
			{
				fieldId: fc.oneof(
					{ weight: 8, arbitrary: fieldIdArb },
					{ weight: 1, arbitrary: fc.constantFrom(null, 5, true, undefined) },
				),
				id: fieldIdArb,
				name: fieldIdArb,
				label: fc.oneof(
					fc.string({ unit: 'grapheme', maxLength: 16 }),
					fc.constantFrom(undefined, null, 3, ''),
				),
				displayName: fc.string({ maxLength: 8 }),
				type: typeArb,
				required: flagArb,
				creatable: flagArb,
				updateable: flagArb,
				isCustom: fc.constantFrom(true, false, undefined, 'yes'),
				picklistValues: fc.array(optionItemArb, { maxLength: 6 }),
				options: fc.oneof(
					fc.array(optionItemArb, { maxLength: 6 }),
					fc.constantFrom('a,b', null, { a: 1 }),
				),
				values: fc.array(optionItemArb, { maxLength: 6 }),
			},
			{ requiredKeys: ['fieldId'] },
		),
	},
	{ weight: 1, arbitrary: fc.constantFrom(null, 'firstName', 42, [], [{ fieldId: 'x' }], true) },
	{
		weight: 1,
		arbitrary: fc.dictionary(
			fc.constantFrom('fieldId', 'type', 'label', '__proto__', 'options'),
			fc.jsonValue({ maxDepth: 2 }),
		),
	},
);

/** A schema response: the service's envelope, a bare body, a bare array, `fields`, or something else. */
export const schemaBodyArb: fc.Arbitrary<unknown> = fc
	.tuple(
		fc.array(schemaEntryArb, { maxLength: 10 }),
		fc.constantFrom('envelope', 'bare', 'array', 'dataArray', 'fields', 'junk'),
		fc.jsonValue({ maxDepth: 3 }),
	)
	.map(([entries, shape, junk]) => {
		switch (shape) {
			case 'envelope':
				return { status: 200, data: { unifiedFields: entries }, context: { requestId: 'req_1' } };
			case 'bare':
				return { unifiedFields: entries };
			case 'array':
				return entries;
			case 'dataArray':
				return { data: entries };
			case 'fields':
				return { fields: entries };
			default:
				return junk;
		}
	});

const dateLikeArb: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(
		'2024-02-29',
		'2023-02-29',
		'2024-13-01',
		'2024-05-01T09:30:00',
		'2024-05-01T09:30:00+02:00',
		'2024-05-01 10:00',
		'yesterday',
		'0000-00-00',
		'9999-12-31T23:59:59.999Z',
	),
	fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
);

/** Values an item field may hold: what expressions, forms and spreadsheets produce, plus junk. */
export const itemValueArb: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
	{
		weight: 2,
		arbitrary: fc.constantFrom(
			'42',
			' 3.5 ',
			'NaN',
			'Infinity',
			'1e999',
			'yes',
			'No',
			'on',
			'TRUE',
			'gold',
			'GOLD',
			'Silver',
			'a,b',
			'gold, silver',
			',',
			'ada@example.com',
			'not-an-email',
			'https://example.com',
			'javascript:alert(1)',
			'ftp://x',
		),
	},
	{ weight: 2, arbitrary: dateLikeArb },
	{
		weight: 2,
		arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER)),
	},
	{ weight: 1, arbitrary: fc.boolean() },
	{ weight: 1, arbitrary: fc.constantFrom(null, undefined, '', '   ', [], {}) },
	{
		weight: 1,
		arbitrary: fc.array(
			fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constantFrom(null, true, 'gold')),
			{ maxLength: 4 },
		),
	},
	{ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
	{ weight: 1, arbitrary: fc.date({ noInvalidDate: false }) },
	{ weight: 1, arbitrary: fc.constant(new Date(Number.NaN)) },
);

/** Item json: keys from the schema's ids (so they match) and odd ones (so they do not). */
export function itemArb(fieldIds: string[]): fc.Arbitrary<Record<string, unknown>> {
	const keyArb =
		fieldIds.length > 0 ? fc.oneof(fc.constantFrom(...fieldIds), fieldIdArb) : fieldIdArb;
	return fc.array(fc.tuple(keyArb, itemValueArb), { maxLength: 8 }).map((pairs) => {
		// Own properties even for "__proto__", as JSON.parse makes them.
		const item: Record<string, unknown> = {};
		for (const [key, value] of pairs)
			Object.defineProperty(item, key, {
				value,
				enumerable: true,
				writable: true,
				configurable: true,
			});
		return item;
	});
}

/** A fingerprint of Object.prototype and friends: a polluting write changes it. */
export function prototypeFingerprint(): string {
	const names = (target: object) => Object.getOwnPropertyNames(target).sort().join(',');
	return [
		names(Object.prototype),
		names(Array.prototype),
		names(Function.prototype),
		names(String.prototype),
	].join('|');
}

/** True when a fresh object shows a property it should not have. */
export function looksPolluted(): boolean {
	const probe: Record<string, unknown> = {};
	for (const key of [
		'polluted',
		'isAdmin',
		'value',
		'label',
		'fieldId',
		'type',
		'required',
		'a',
		'x',
		'gold',
	]) {
		if (key in probe) return true;
	}
	return false;
}
