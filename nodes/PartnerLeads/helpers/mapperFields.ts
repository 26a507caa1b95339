import type { FieldType, ResourceMapperField } from 'n8n-workflow';

import type { LeadField, LeadFieldType } from './leadSchema';
import { CREDIT_FIELD_IDS } from './leadSchema';

/** What the fields are for: it decides which schema entries are offered and which are required. */
export type LeadWritePurpose = 'create' | 'update' | 'upsert';

const N8N_TYPES: Record<LeadFieldType, FieldType> = {
	string: 'string',
	textarea: 'string',
	email: 'string',
	phone: 'string',
	url: 'string',
	number: 'number',
	currency: 'number',
	boolean: 'boolean',
	date: 'dateTime',
	datetime: 'dateTime',
	picklist: 'options',
	multipicklist: 'array',
};

/** Whether a schema entry can be written by this kind of request. */
export function isWritableFor(field: LeadField, purpose: LeadWritePurpose): boolean {
	if (purpose === 'create') return field.creatable;
	if (purpose === 'update') return field.updateable;
	return field.creatable || field.updateable;
}

/**
 * The schema entries the field mapper shows. On create and upsert, partner organization and
 * agent are node parameters of their own (spec 5.8), so they are left out here.
 */
export function writableLeadFields(fields: LeadField[], purpose: LeadWritePurpose): LeadField[] {
	return fields.filter(
		(field) =>
			isWritableFor(field, purpose) &&
			(purpose === 'update' || !CREDIT_FIELD_IDS.includes(field.fieldId)),
	);
}

/** The schema as n8n's resource mapper wants it: label, required, type and picklist options. */
export function leadFieldsFromSchema(
	fields: LeadField[],
	purpose: LeadWritePurpose,
): ResourceMapperField[] {
	return writableLeadFields(fields, purpose).map((field) => {
		const mapped: ResourceMapperField = {
			id: field.fieldId,
			displayName: field.label,
			// Nothing is required on an update; on upsert only what a create would need.
			required: purpose !== 'update' && field.required && field.creatable,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: N8N_TYPES[field.type],
		};
		if (field.type === 'picklist') {
			mapped.options = (field.options ?? []).map((option) => ({
				name: option.label,
				value: option.value,
			}));
		}
		return mapped;
	});
}
