import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { invalidLeadError, validateLeadAgainstSchema } from './validateLead';

import type { LeadField } from './leadSchema';
import { CREDIT_FIELD_IDS } from './leadSchema';
import type { LeadWritePurpose } from './mapperFields';
import { writableLeadFields } from './mapperFields';

/** The stored value of a `resourceMapper` parameter. */
interface MapperValue {
	mappingMode?: string;
	value?: IDataObject | null;
}

function asObject(value: unknown): IDataObject | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;
}

/**
 * The lead values of one item, as the user mapped them in Lead Fields. In "Map Automatically"
 * mode the item's own keys that are schema field ids are taken, including the ones under a
 * `customFields` object, so the output of Lead > Get can be fed straight back in.
 *
 * The whole parameter is read (not `leadFields.value`) so that the node checks values
 * against the live schema itself, with its own messages, rather than against the copy of
 * the schema saved in the workflow.
 */
export function readLeadFields(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	schema: LeadField[],
	purpose: LeadWritePurpose,
): IDataObject {
	const mapper = (this.getNodeParameter('leadFields', itemIndex, {}) ?? {}) as MapperValue;
	if (mapper.mappingMode !== 'autoMapInputData') return { ...(asObject(mapper.value) ?? {}) };
	const source: IDataObject = { ...(asObject(item.json.customFields) ?? {}), ...item.json };
	const values: IDataObject = {};
	for (const field of writableLeadFields(schema, purpose)) {
		// Own keys only: every object "has" constructor, toString... by inheritance.
		if (Object.prototype.hasOwnProperty.call(source, field.fieldId))
			values[field.fieldId] = source[field.fieldId];
	}
	return values;
}

/**
 * Partner organization and agent are node parameters on create and upsert (spec 5.8). When
 * they are empty and Lead Fields maps automatically, the item's own values are used.
 */
export function readCreditFields(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
): IDataObject {
	const mapper = (this.getNodeParameter('leadFields', itemIndex, {}) ?? {}) as MapperValue;
	const autoMap = mapper.mappingMode === 'autoMapInputData';
	const values: IDataObject = {};
	for (const fieldId of CREDIT_FIELD_IDS) {
		const parameter = this.getNodeParameter(fieldId, itemIndex, '', {
			extractValue: true,
		}) as unknown;
		const value = typeof parameter === 'string' ? parameter.trim() : parameter;
		if (value !== '' && value !== undefined && value !== null) values[fieldId] = value as string;
		else if (autoMap && item.json[fieldId] !== undefined) values[fieldId] = item.json[fieldId];
	}
	return values;
}

/** Test schemas may leave the credit fields out; they still exist on every lead. */
export function withCreditFields(schema: LeadField[]): LeadField[] {
	const missing = CREDIT_FIELD_IDS.filter(
		(fieldId) => !schema.some((field) => field.fieldId === fieldId),
	);
	return [
		...schema,
		...missing.map(
			(fieldId): LeadField => ({
				fieldId,
				label: fieldId,
				type: 'string',
				serviceType: 'string',
				required: false,
				creatable: true,
				updateable: true,
				custom: false,
			}),
		),
	];
}

/** The request body: standard fields at the top, custom ones under `customFields` by fieldId. */
export function splitStandardAndCustomFields(
	values: IDataObject,
	schema: LeadField[],
): IDataObject {
	const custom = new Set(schema.filter((field) => field.custom).map((field) => field.fieldId));
	const body: IDataObject = {};
	const customFields: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		if (custom.has(key)) customFields[key] = value;
		else body[key] = value;
	}
	if (Object.keys(customFields).length > 0) body.customFields = customFields;
	return body;
}

/**
 * One item's lead values, read from the node's parameters (and the partner organization and
 * agent on create and upsert) and checked against the schema; throws the item's clear error.
 */
export function readValidLeadValues(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	schema: LeadField[],
	purpose: LeadWritePurpose,
): IDataObject {
	const input = readLeadFields.call(this, itemIndex, item, schema, purpose);
	if (purpose !== 'update') Object.assign(input, readCreditFields.call(this, itemIndex, item));
	const check = validateLeadAgainstSchema(input, schema, purpose);
	if (check.problems.length > 0) throw invalidLeadError(this.getNode(), check.problems, itemIndex);
	return check.values;
}
