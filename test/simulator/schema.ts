import type { SchemaField, SchemaFieldType } from './types';

/**
 * The portal's lead schema. The spec leaves the field list, the `type` values and the
 * picklist shape open; the default answer uses picklistValues: [{ value, label }] (the fuzz
 * tests send every other shape).
 */

/** Standard lead fields: top level in a lead; every other fieldId is custom and goes under customFields. */
export const STANDARD_LEAD_FIELD_IDS: readonly string[] = Object.freeze([
	'firstName',
	'lastName',
	'email',
	'phone',
	'companyName',
	'websiteUrl',
	'notes',
	'value',
	'closeDate',
	'platform',
	'partnerOrganizationId',
	'agentId',
]);

const STANDARD_SET: ReadonlySet<string> = new Set(STANDARD_LEAD_FIELD_IDS);

/** Set by the service; a client may read them but never write them. */
export const READ_ONLY_LEAD_FIELDS: ReadonlySet<string> = new Set([
	'id',
	'companyId',
	'status',
	'createdAt',
	'updatedAt',
]);

/** Types of the standard fields when a test's schema leaves them out (they still exist on a lead). */
export const STANDARD_FIELD_TYPES: Readonly<Record<string, SchemaFieldType>> = Object.freeze({
	firstName: 'string',
	lastName: 'string',
	email: 'email',
	phone: 'phone',
	companyName: 'string',
	websiteUrl: 'url',
	notes: 'textarea',
	value: 'currency',
	closeDate: 'date',
	platform: 'string',
	partnerOrganizationId: 'string',
	agentId: 'string',
});

function field(
	fieldId: string,
	label: string,
	type: SchemaFieldType,
	extra: Partial<SchemaField> = {},
): SchemaField {
	return { fieldId, label, type, required: false, creatable: true, updateable: true, ...extra };
}

function options(...pairs: Array<[string, string]>) {
	return pairs.map(([value, label]) => ({ value, label }));
}

function deepFreeze<T>(value: T): T {
	if (value && typeof value === 'object') {
		for (const inner of Object.values(value)) deepFreeze(inner);
		Object.freeze(value);
	}
	return value;
}

/** Frozen: copy it (e.g. `structuredClone`) before changing it in a test. */
export const DEFAULT_LEAD_SCHEMA: SchemaField[] = deepFreeze([
	field('firstName', 'First name', 'string', { required: true }),
	field('lastName', 'Last name', 'string', { required: true }),
	field('email', 'Email', 'email', { required: true }),
	field('phone', 'Phone', 'phone'),
	field('companyName', 'Company name', 'string'),
	field('websiteUrl', 'Website', 'url'),
	field('notes', 'Notes', 'textarea'),
	field('value', 'Deal value', 'currency'),
	field('closeDate', 'Expected close date', 'date'),
	field('platform', 'Platform', 'picklist', {
		picklistValues: options(
			['hubspot', 'HubSpot'],
			['salesforce', 'Salesforce'],
			['pipedrive', 'Pipedrive'],
			['other', 'Other'],
		),
	}),
	// Not required by the schema: the self-serve rule (spec 5.8) makes them required.
	field('partnerOrganizationId', 'Partner organization', 'string'),
	field('agentId', 'Agent', 'string'),
	// Custom fields
	field('industry', 'Industry', 'picklist', {
		picklistValues: options(
			['saas', 'SaaS'],
			['fintech', 'Fintech'],
			['healthcare', 'Healthcare'],
			['retail', 'Retail'],
		),
	}),
	field('employeeCount', 'Employee count', 'number'),
	field('referralNotes', 'Referral notes', 'textarea'),
	field('isEnterprise', 'Enterprise account', 'boolean'),
	field('interests', 'Interests', 'multipicklist', {
		picklistValues: options(
			['analytics', 'Analytics'],
			['automation', 'Automation'],
			['integrations', 'Integrations'],
			['security', 'Security'],
		),
	}),
	field('lastContactedAt', 'Last contacted at', 'datetime'),
	field('internalScore', 'Internal score', 'number', { creatable: false, updateable: false }),
]);

export function isStandardFieldId(fieldId: string): boolean {
	return STANDARD_SET.has(fieldId);
}

/** An explicit `isCustom` on the entry wins; otherwise custom = not a standard field id. */
export function isCustomField(entry: SchemaField): boolean {
	return typeof entry.isCustom === 'boolean' ? entry.isCustom : !STANDARD_SET.has(entry.fieldId);
}

export function cloneSchema(fields: readonly SchemaField[]): SchemaField[] {
	return structuredClone(fields) as SchemaField[];
}

/**
 * The allowed values of a picklist entry. `picklistValues` is what the simulator serves; a test
 * schema may use `options` / `values` with strings or { value } items, so accept those too.
 */
export function allowedValues(entry: SchemaField): string[] | undefined {
	const raw = entry.picklistValues ?? entry.options ?? entry.values;
	if (!Array.isArray(raw)) return undefined;
	return raw.map((item: unknown) =>
		typeof item === 'object' && item !== null
			? String((item as { value?: unknown }).value)
			: String(item),
	);
}
