import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { leadFullName } from '../../shared/leads';
import { asRecord } from '../../shared/transport/record';
import { type LeadField, fieldName } from '../../shared/schema/leadField';
import { coerceFieldValue, isEmptyValue } from '../../shared/schema/fieldTypes';
import type { LeadWritePurpose } from './schema';
import { CREDIT_FIELD_IDS, isWritableFor, writableLeadFields } from './schema';

/** The stored value of a `resourceMapper` parameter. */
interface MapperValue {
	mappingMode?: string;
	value?: IDataObject | null;
}

/** Reading Lead Fields evaluates all its expressions, so each item reads it once. */
function readMapper(this: IExecuteFunctions, itemIndex: number): MapperValue {
	return (this.getNodeParameter('leadFields', itemIndex, {}) ?? {}) as MapperValue;
}

/**
 * One item's Lead Fields. Auto-mapping takes item keys that are field ids, also in `customFields`
 * (so Lead > Get output fits). Reads the whole parameter to check against the live schema.
 */
export function readLeadFields(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	schema: LeadField[],
	purpose: LeadWritePurpose,
	mapper: MapperValue = readMapper.call(this, itemIndex),
): IDataObject {
	if (mapper.mappingMode !== 'autoMapInputData') return { ...(asRecord(mapper.value) ?? {}) };
	const source: IDataObject = { ...(asRecord(item.json.customFields) ?? {}), ...item.json };
	const values: IDataObject = {};
	for (const field of writableLeadFields(schema, purpose)) {
		// Own keys only: every object "has" constructor, toString... by inheritance.
		if (Object.prototype.hasOwnProperty.call(source, field.fieldId))
			values[field.fieldId] = source[field.fieldId];
	}
	return values;
}

/** Partner organization and agent; when empty and auto-mapping, taken from the item. */
export function readCreditFields(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	mapper: MapperValue = readMapper.call(this, itemIndex),
): IDataObject {
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

/** The schema may omit the credit fields, but every lead has them and self-serve keys need them. */
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

/** One item's lead values (and credit fields, except on update), checked against the schema. */
export function readValidLeadValues(
	this: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	schema: LeadField[],
	purpose: LeadWritePurpose,
): IDataObject {
	const mapper = readMapper.call(this, itemIndex);
	const input = readLeadFields.call(this, itemIndex, item, schema, purpose, mapper);
	if (purpose !== 'update')
		Object.assign(input, readCreditFields.call(this, itemIndex, item, mapper));
	const check = validateLeadAgainstSchema(input, schema, purpose);
	if (check.problems.length > 0) throw invalidLeadError(this.getNode(), check.problems, itemIndex);
	return check.values;
}

/** Checked before sending, so a bad item costs no request; empty values are left out. */
export function validateLeadAgainstSchema(
	input: IDataObject,
	schema: LeadField[],
	purpose: LeadWritePurpose,
): { values: IDataObject; problems: string[] } {
	const byId = new Map(schema.map((field) => [field.fieldId, field]));
	const values: IDataObject = {};
	const problems: string[] = [];
	const reported = new Set<string>();
	for (const [key, raw] of Object.entries(input)) {
		if (isEmptyValue(raw)) continue;
		const field = byId.get(key);
		if (!field) {
			problems.push(
				`"${key}" is not a field of the portal's lead schema (it may have been removed: open Lead Fields and refresh the field list)`,
			);
			continue;
		}
		if (!isWritableFor(field, purpose)) {
			problems.push(notWritableProblem(field, purpose));
			continue;
		}
		const coerced = coerceFieldValue(field, raw);
		if (!coerced.ok) {
			problems.push(coerced.problem);
			reported.add(key);
		} else if (!isEmptyValue(coerced.value)) values[key] = coerced.value as IDataObject[string];
	}
	if (purpose === 'create') problems.push(...missingRequiredFields(values, schema, reported));
	return { values, problems };
}

function notWritableProblem(field: LeadField, purpose: LeadWritePurpose): string {
	if (purpose === 'create') {
		return `${fieldName(field)} cannot be set when a lead is created (the lead schema marks it not creatable)`;
	}
	if (purpose === 'update')
		return `${fieldName(field)} cannot be changed (the lead schema marks it not updateable)`;
	return `${fieldName(field)} can be neither set nor changed (the lead schema marks it read-only)`;
}

/** On create, every field the schema marks required must have a value (the service refuses the lead otherwise). */
export function missingRequiredFields(
	values: IDataObject,
	schema: LeadField[],
	reported = new Set<string>(),
): string[] {
	return schema
		.filter(
			(field) =>
				field.required &&
				field.creatable &&
				// Own values only: an inherited one (a field named "constructor") is no value.
				(!Object.prototype.hasOwnProperty.call(values, field.fieldId) ||
					isEmptyValue(values[field.fieldId])) &&
				!reported.has(field.fieldId),
		)
		.map((field) => `${fieldName(field)} is required but has no value`);
}

/** The values a create or an update may send; the others are left out. */
export function writableValues(
	values: IDataObject,
	schema: LeadField[],
	purpose: 'create' | 'update',
): IDataObject {
	const byId = new Map(schema.map((field) => [field.fieldId, field]));
	const kept: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		const field = byId.get(key);
		if (field && isWritableFor(field, purpose)) kept[key] = value;
	}
	return kept;
}

/** The error for an item whose fields do not fit the schema. */
export function invalidLeadError(
	node: INode,
	problems: string[],
	itemIndex: number,
): NodeOperationError {
	const plural = problems.length > 1;
	return new NodeOperationError(
		node,
		`Invalid lead field${plural ? 's' : ''}: ${problems.join('; ')}`,
		{
			itemIndex,
			description:
				"Change the value in 'Lead Fields' or in the input item. Fields, types and allowed values come from the portal's lead schema; Lead Schema > Get shows it.",
		},
	);
}

/** The lead fields most workflows need (Get Many with Simplify). */
export function simplifyLead(lead: IDataObject): IDataObject {
	const simple: IDataObject = {
		id: lead.id,
		name: leadFullName(lead),
		email: lead.email,
		status: lead.status,
		value: lead.value,
		partnerOrganizationId: lead.partnerOrganizationId,
		agentId: lead.agentId,
		createdAt: lead.createdAt,
		updatedAt: lead.updatedAt,
	};
	for (const key of Object.keys(simple)) if (simple[key] === undefined) delete simple[key];
	return simple;
}
