import type { LeadFieldType } from './fieldTypeNames';

/** One field of the portal's lead schema as the nodes read it (leadSchema.ts reads the answer). */
export interface PicklistOption {
	value: string;
	label: string;
}

export interface LeadField {
	fieldId: string;
	label: string;
	/** the type as the nodes read it (see fieldTypeNames.ts for unknown ones) */
	type: LeadFieldType;
	/** the type as the service sent it, for the schema output */
	serviceType: string;
	required: boolean;
	creatable: boolean;
	updateable: boolean;
	/** custom fields travel under `customFields`, keyed by fieldId */
	custom: boolean;
	options?: PicklistOption[];
}

/** "First name (firstName)": how errors name a field, so the user finds it in the portal and in n8n. */
export function fieldName(field: Pick<LeadField, 'fieldId' | 'label'>): string {
	return field.label && field.label !== field.fieldId
		? `${field.label} (${field.fieldId})`
		: field.fieldId;
}
