import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { coerceFieldValue, isEmptyValue } from './coerceValue';
import type { LeadField } from './leadSchema';
import { fieldName } from './leadSchema';
import type { LeadWritePurpose } from './mapperFields';
import { isWritableFor } from './mapperFields';

export interface LeadCheck {
	/** the values to send: converted to the schema's types, empty ones left out */
	values: IDataObject;
	/** one sentence per problem, naming the field */
	problems: string[];
}

/**
 * Checks one lead's values against the portal's schema before anything is sent, so a bad
 * item costs no request and its error names the field, the expected type or the allowed
 * values. Empty values mean "not given": they are not sent.
 */
export function validateLeadAgainstSchema(
	input: IDataObject,
	schema: LeadField[],
	purpose: LeadWritePurpose,
): LeadCheck {
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

/** Spec section 4, create rule 1: every field the schema marks required must have a value. */
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
