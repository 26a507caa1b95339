// Type-only: erased at run time, so fieldTypes.ts can import this module without a load cycle.
import type { LeadFieldType } from './fieldTypes';

/** One field of the portal's lead schema as the node reads it (helpers/schema.ts reads the answer). */
export interface PicklistOption {
	value: string;
	label: string;
}

export interface LeadField {
	fieldId: string;
	label: string;
	/** the type as the node reads it (see fieldTypes.ts for unknown ones) */
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
