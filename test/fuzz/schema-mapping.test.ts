import fc from 'fast-check';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { coerceFieldValue, isEmptyValue } from '../../nodes/shared/schema/fieldTypes';
import { STANDARD_LEAD_FIELD_IDS } from '../simulator/schema';
import {
	readLeadFields,
	splitStandardAndCustomFields,
	validateLeadAgainstSchema,
	writableValues,
} from '../../nodes/PartnerLeads/helpers/leadValues';
import type { LeadWritePurpose } from '../../nodes/PartnerLeads/helpers/schema';
import {
	isWritableFor,
	leadFieldsFromSchema,
	writableLeadFields,
} from '../../nodes/PartnerLeads/helpers/schema';
import type { LeadField } from '../../nodes/shared/schema/leadField';
import { readLeadField, readLeadSchema } from '../../nodes/shared/schema/leadSchema';
import {
	CANONICAL_TYPES,
	FUZZ_SEED,
	itemArb,
	itemValueArb,
	looksPolluted,
	optionItemArb,
	prototypeFingerprint,
	runs,
	schemaBodyArb,
	schemaEntryArb,
	UNKNOWN_TYPES,
	fieldIdArb,
} from './arbitraries';

/**
 * Properties of the action node's schema helpers, over random schemas and items: reading a
 * schema never throws and always yields well-formed fields; mapping to n8n's resource
 * mapper always yields types n8n knows; coercion and validation never throw, name the
 * field in every problem, and never lose or invent a value; nothing pollutes a prototype.
 */

const KNOWN_TYPES = new Set<string>(CANONICAL_TYPES);
const N8N_FIELD_TYPES = new Set(['string', 'number', 'boolean', 'dateTime', 'options', 'array']);
const PURPOSES: LeadWritePurpose[] = ['create', 'update', 'upsert'];

const baseline = prototypeFingerprint();

function params(numRuns: number) {
	return { seed: FUZZ_SEED, numRuns: runs(numRuns) };
}

function own(target: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(target, key);
}

/** A schema that always reads (at least one usable field), from random entries. */
const schemaArb: fc.Arbitrary<LeadField[]> = fc
	.array(schemaEntryArb, { minLength: 1, maxLength: 10 })
	.map((entries) => readLeadSchema({ unifiedFields: entries }) ?? []);

const purposeArb = fc.constantFrom(...PURPOSES);

function expectWellFormed(field: LeadField): void {
	expect(typeof field.fieldId).toBe('string');
	expect(field.fieldId).not.toBe('');
	expect(field.fieldId).toBe(field.fieldId.trim());
	expect(typeof field.label).toBe('string');
	expect(field.label).not.toBe('');
	expect(KNOWN_TYPES.has(field.type)).toBe(true);
	expect(typeof field.serviceType).toBe('string');
	for (const flag of [field.required, field.creatable, field.updateable, field.custom])
		expect(typeof flag).toBe('boolean');
	if (field.type === 'picklist' || field.type === 'multipicklist') {
		expect(Array.isArray(field.options)).toBe(true);
		for (const option of field.options ?? []) {
			expect(typeof option.value).toBe('string');
			expect(option.value).not.toBe('');
			expect(typeof option.label).toBe('string');
		}
	} else {
		expect(field.options).toBeUndefined();
	}
}

afterEach(() => {
	expect(prototypeFingerprint()).toBe(baseline);
	expect(looksPolluted()).toBe(false);
});

describe('fuzz: reading the lead schema tolerantly', () => {
	it('never throws; every field it returns is well-formed, with a known type, and ids are unique', () => {
		fc.assert(
			fc.property(schemaBodyArb, (body) => {
				const fields = readLeadSchema(body);
				if (fields === undefined) return;
				expect(Array.isArray(fields)).toBe(true);
				fields.forEach(expectWellFormed);
				expect(new Set(fields.map((field) => field.fieldId)).size).toBe(fields.length);
			}),
			params(400),
		);
	});

	it('keeps known types, and treats every unknown type as string (picklist when it has options)', () => {
		const entry = fc.record({
			fieldId: fc.constantFrom('tier', 'notes', 'x'),
			type: fc.oneof(fc.constantFrom(...CANONICAL_TYPES), fc.constantFrom(...UNKNOWN_TYPES)),
			options: fc.option(fc.array(optionItemArb, { maxLength: 3 }), { nil: undefined }),
		});
		fc.assert(
			fc.property(entry, ({ fieldId, type, options }) => {
				const field = readLeadField(
					options === undefined ? { fieldId, type } : { fieldId, type, options },
				);
				expect(field).toBeDefined();
				const expected = KNOWN_TYPES.has(type)
					? type
					: options !== undefined
						? 'picklist'
						: 'string';
				expect(field?.type).toBe(expected);
				expect(field?.serviceType).toBe(type);
			}),
			params(300),
		);
	});

	it('an explicit isCustom flag wins; otherwise only the standard ids are standard', () => {
		fc.assert(
			fc.property(fieldIdArb, fc.constantFrom(true, false, undefined), (fieldId, isCustom) => {
				const field = readLeadField({ fieldId, type: 'string', isCustom });
				// No id, or one no plain object can hold as its own key: the entry is skipped.
				if (fieldId.trim() === '' || fieldId.trim() === '__proto__')
					return expect(field).toBeUndefined();
				// The simulator's list, the service's side, is the oracle for which ids are standard.
				expect(field?.custom).toBe(isCustom ?? !STANDARD_LEAD_FIELD_IDS.includes(fieldId.trim()));
			}),
			params(300),
		);
	});
});

describe('fuzz: mapping to n8n resource-mapper fields', () => {
	it('every mapped field has a type n8n knows, its schema id, and options only as {name, value} strings', () => {
		fc.assert(
			fc.property(schemaArb, purposeArb, (fields, purpose) => {
				const mapped = leadFieldsFromSchema(fields, purpose);
				const writable = writableLeadFields(fields, purpose);
				expect(mapped.map((field) => field.id)).toEqual(writable.map((field) => field.fieldId));
				for (const [index, field] of mapped.entries()) {
					expect(N8N_FIELD_TYPES.has(String(field.type))).toBe(true);
					expect(field.displayName).toBe(writable[index].label);
					if (purpose === 'update') expect(field.required).toBe(false);
					else expect(field.required).toBe(writable[index].required && writable[index].creatable);
					if (writable[index].type === 'picklist') {
						for (const option of field.options ?? []) {
							expect(typeof option.name).toBe('string');
							expect(typeof option.value).toBe('string');
						}
					} else {
						expect(field.options).toBeUndefined();
					}
				}
				// JSON round trip: what n8n stores in the workflow.
				expect(JSON.parse(JSON.stringify(mapped))).toEqual(mapped);
			}),
			params(300),
		);
	});
});

describe('fuzz: coercing one value', () => {
	const fieldArb: fc.Arbitrary<LeadField> = schemaArb.chain((fields) =>
		fields.length > 0
			? fc.constantFrom(...fields)
			: fc.constant(readLeadField({ fieldId: 'x', type: 'string' }) as LeadField),
	);

	it('never throws; a refusal names the field; an accepted value has the type of the field', () => {
		fc.assert(
			fc.property(fieldArb, itemValueArb, (field, value) => {
				const result = coerceFieldValue(field, value);
				if (!result.ok) {
					expect(typeof result.problem).toBe('string');
					expect(result.problem).toContain(field.fieldId);
					return;
				}
				const accepted = result.value;
				switch (field.type) {
					case 'number':
					case 'currency':
						expect(Number.isFinite(accepted)).toBe(true);
						break;
					case 'boolean':
						expect(typeof accepted).toBe('boolean');
						break;
					case 'date':
						expect(accepted).toMatch(/^\d{4}-\d{2}-\d{2}$/);
						break;
					case 'datetime':
						expect(new Date(accepted as string).toISOString()).toBe(accepted);
						break;
					case 'picklist':
						expect(typeof accepted).toBe('string');
						if ((field.options ?? []).length > 0)
							expect(field.options?.map((option) => option.value)).toContain(accepted);
						break;
					case 'multipicklist':
						expect(Array.isArray(accepted)).toBe(true);
						for (const item of accepted as unknown[]) {
							expect(typeof item).toBe('string');
							if ((field.options ?? []).length > 0)
								expect(field.options?.map((option) => option.value)).toContain(item);
						}
						break;
					default:
						expect(typeof accepted).toBe('string');
				}
			}),
			params(600),
		);
	});
});

describe('fuzz: validating an item against the schema', () => {
	const caseArb = schemaArb.chain((schema) =>
		fc.tuple(fc.constant(schema), itemArb(schema.map((field) => field.fieldId)), purposeArb),
	);

	it('never throws; every given value is either sent as an own property or named in a problem', () => {
		fc.assert(
			fc.property(caseArb, ([schema, input, purpose]) => {
				const check = validateLeadAgainstSchema(input as IDataObject, schema, purpose);
				const byId = new Map(schema.map((field) => [field.fieldId, field]));
				for (const problem of check.problems) expect(typeof problem).toBe('string');
				for (const key of Object.keys(input)) {
					const raw = input[key];
					if (isEmptyValue(raw)) continue;
					const field = byId.get(key);
					const named = check.problems.some((problem) => problem.includes(key));
					if (!field || !isWritableFor(field, purpose)) {
						expect(named).toBe(true);
						continue;
					}
					const coerced = coerceFieldValue(field, raw);
					if (!coerced.ok) expect(named).toBe(true);
					else if (!isEmptyValue(coerced.value)) {
						expect(own(check.values, key)).toBe(true);
						expect(check.values[key]).toEqual(coerced.value);
					}
				}
				// Nothing invented: only input keys, only writable fields.
				for (const key of Object.keys(check.values)) {
					expect(own(input, key)).toBe(true);
					expect(isWritableFor(byId.get(key) as LeadField, purpose)).toBe(true);
				}
				expect(Object.getPrototypeOf(check.values)).toBe(Object.prototype);
				if (purpose === 'create') {
					for (const field of schema) {
						if (!field.required || !field.creatable || own(check.values, field.fieldId)) continue;
						expect(check.problems.some((problem) => problem.includes(field.fieldId))).toBe(true);
					}
				}
			}),
			params(500),
		);
	});

	it('writableValues keeps exactly the writable own keys of validated values (as Create or Update uses it)', () => {
		fc.assert(
			fc.property(
				caseArb,
				fc.constantFrom<'create' | 'update'>('create', 'update'),
				([schema, item], purpose) => {
					const input = validateLeadAgainstSchema(item as IDataObject, schema, 'upsert').values;
					const kept = writableValues(input, schema, purpose);
					const byId = new Map(schema.map((field) => [field.fieldId, field]));
					const expected = Object.keys(input).filter(
						(key) => byId.has(key) && isWritableFor(byId.get(key) as LeadField, purpose),
					);
					expect(Object.keys(kept).sort()).toEqual(expected.sort());
					expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
				},
			),
			params(300),
		);
	});
});

describe('fuzz: splitting standard and custom fields', () => {
	it('every validated value ends up exactly once: custom ones under customFields, the others at the top', () => {
		const caseArb = schemaArb.chain((schema) =>
			fc.tuple(fc.constant(schema), itemArb(schema.map((field) => field.fieldId)), purposeArb),
		);
		fc.assert(
			fc.property(caseArb, ([schema, item, purpose]) => {
				const values = validateLeadAgainstSchema(item as IDataObject, schema, purpose).values;
				const body = splitStandardAndCustomFields(values as IDataObject, schema);
				const custom = new Set(
					schema.filter((field) => field.custom).map((field) => field.fieldId),
				);
				const customFields = (own(body, 'customFields') ? body.customFields : {}) as IDataObject;
				let placed = 0;
				for (const key of Object.keys(values)) {
					if (custom.has(key)) {
						expect(own(customFields, key)).toBe(true);
						expect(customFields[key]).toBe(values[key]);
					} else {
						expect(own(body, key)).toBe(true);
						expect(body[key]).toBe(values[key]);
					}
					placed++;
				}
				const topLevel = Object.keys(body).filter((key) => key !== 'customFields').length;
				expect(topLevel + Object.keys(customFields).length).toBe(placed);
				expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
			}),
			params(400),
		);
	});
});

describe('fuzz: Lead Fields mapped automatically from the item', () => {
	/** Just enough of IExecuteFunctions for readLeadFields: the Lead Fields parameter. */
	function autoMapContext(): IExecuteFunctions {
		return {
			getNodeParameter: () => ({ mappingMode: 'autoMapInputData', value: null }),
		} as unknown as IExecuteFunctions;
	}

	it('takes exactly the own keys of the item (and of its customFields) that are writable schema ids', () => {
		const caseArb = schemaArb.chain((schema) =>
			fc.tuple(
				fc.constant(schema),
				itemArb(schema.map((field) => field.fieldId)),
				fc.option(itemArb(schema.map((field) => field.fieldId)), { nil: undefined }),
				purposeArb,
			),
		);
		fc.assert(
			fc.property(caseArb, ([schema, json, customFields, purpose]) => {
				const item: INodeExecutionData = {
					json: (customFields ? { ...json, customFields } : json) as IDataObject,
				};
				const values = readLeadFields.call(autoMapContext(), 0, item, schema, purpose);
				const source: Record<string, unknown> = {};
				for (const part of [customFields ?? {}, item.json]) {
					for (const key of Object.keys(part))
						Object.defineProperty(source, key, {
							value: (part as Record<string, unknown>)[key],
							enumerable: true,
							configurable: true,
							writable: true,
						});
				}
				const writable = writableLeadFields(schema, purpose).map((field) => field.fieldId);
				const expected = writable.filter((fieldId) => own(source, fieldId));
				expect(Object.keys(values).sort()).toEqual([...expected].sort());
				for (const key of expected) expect(values[key]).toBe(source[key]);
			}),
			params(400),
		);
	});
});
