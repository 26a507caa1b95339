import type { ResourceMapperField } from 'n8n-workflow';

import type { LeadField } from '../../shared/schema/leadField';
import { n8nTypeOf } from '../../shared/schema/fieldTypes';

/** Set on create as first-class node parameters, so they are left out of the field mapper there. */
export const CREDIT_FIELD_IDS: readonly string[] = ['partnerOrganizationId', 'agentId'];

/** What the fields are for: it decides which schema entries are offered and which are required. */
export type LeadWritePurpose = 'create' | 'update' | 'upsert';

/** Whether a schema entry can be written by this kind of request. */
export function isWritableFor(field: LeadField, purpose: LeadWritePurpose): boolean {
	if (purpose === 'create') return field.creatable;
	if (purpose === 'update') return field.updateable;
	return field.creatable || field.updateable;
}

/** The entries the mapper shows (without the credit fields, except on update). */
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
			type: n8nTypeOf(field),
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
