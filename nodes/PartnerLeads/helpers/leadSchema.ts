import { unwrapEnvelope } from '../transport/envelope';

/**
 * The lead schema as the node uses it, read tolerantly from whatever the schema endpoint
 * sends (spec section 2 leaves `type` values and the picklist shape open; DESIGN.md lists
 * the shapes a client must accept).
 */

export type LeadFieldType =
	| 'string'
	| 'textarea'
	| 'email'
	| 'phone'
	| 'url'
	| 'number'
	| 'currency'
	| 'boolean'
	| 'date'
	| 'datetime'
	| 'picklist'
	| 'multipicklist';

export interface PicklistOption {
	value: string;
	label: string;
}

export interface LeadField {
	fieldId: string;
	label: string;
	/** normalised type; anything unknown is 'string' */
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

/** DESIGN.md: every other fieldId is custom. */
export const STANDARD_LEAD_FIELD_IDS: readonly string[] = [
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
];

/** Set on create as first-class node parameters, so they are left out of the field mapper there. */
export const CREDIT_FIELD_IDS: readonly string[] = ['partnerOrganizationId', 'agentId'];

const STANDARD = new Set(STANDARD_LEAD_FIELD_IDS);

const TYPE_ALIASES: Record<string, LeadFieldType> = {
	string: 'string',
	text: 'string',
	textarea: 'textarea',
	longtext: 'textarea',
	email: 'email',
	phone: 'phone',
	tel: 'phone',
	url: 'url',
	number: 'number',
	integer: 'number',
	int: 'number',
	decimal: 'number',
	double: 'number',
	float: 'number',
	percent: 'number',
	currency: 'currency',
	boolean: 'boolean',
	bool: 'boolean',
	checkbox: 'boolean',
	date: 'date',
	datetime: 'datetime',
	'date-time': 'datetime',
	timestamp: 'datetime',
	picklist: 'picklist',
	select: 'picklist',
	dropdown: 'picklist',
	enum: 'picklist',
	multipicklist: 'multipicklist',
	multiselect: 'multipicklist',
};

type Loose = Record<string, unknown>;

function asRecord(value: unknown): Loose | undefined {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Loose)
		: undefined;
}

function text(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return undefined;
}

function flag(value: unknown, fallback: boolean): boolean {
	if (typeof value === 'boolean') return value;
	if (value === 'true') return true;
	if (value === 'false') return false;
	return fallback;
}

/** Picklist options as `picklistValues`, `options` or `values`; items as strings or `{ value, label }`. */
export function readPicklistOptions(entry: Loose): PicklistOption[] | undefined {
	const raw = [entry.picklistValues, entry.options, entry.values].find(Array.isArray) as
		| unknown[]
		| undefined;
	if (!raw) return undefined;
	const options: PicklistOption[] = [];
	for (const item of raw) {
		const record = asRecord(item);
		const value = record
			? text(record.value ?? record.id ?? record.name ?? record.label)
			: text(item);
		if (value === undefined) continue;
		const label = record ? (text(record.label ?? record.name) ?? value) : value;
		options.push({ value, label });
	}
	return options;
}

function readType(raw: unknown, hasOptions: boolean): LeadFieldType {
	const key = typeof raw === 'string' ? raw.trim().toLowerCase().replace(/[\s_]/g, '') : '';
	// Own keys only: a type named "constructor" or "toString" is unknown, not Object's.
	const known = Object.prototype.hasOwnProperty.call(TYPE_ALIASES, key)
		? TYPE_ALIASES[key]
		: undefined;
	if (known) return known;
	// An unknown type with a list of options still behaves like a picklist.
	return hasOptions ? 'picklist' : 'string';
}

export function readLeadField(raw: unknown): LeadField | undefined {
	const entry = asRecord(raw);
	if (!entry) return undefined;
	const fieldId = text(entry.fieldId ?? entry.id ?? entry.name);
	// "__proto__" cannot be a key of the plain objects items and parameters are made of.
	if (!fieldId || fieldId === '__proto__') return undefined;
	const options = readPicklistOptions(entry);
	const type = readType(entry.type, options !== undefined);
	const field: LeadField = {
		fieldId,
		label: text(entry.label ?? entry.displayName) ?? fieldId,
		type,
		serviceType: typeof entry.type === 'string' ? entry.type : type,
		required: flag(entry.required, false),
		creatable: flag(entry.creatable, true),
		updateable: flag(entry.updateable, true),
		// An explicit flag on the entry wins over the list of standard ids.
		custom: typeof entry.isCustom === 'boolean' ? entry.isCustom : !STANDARD.has(fieldId),
	};
	if (type === 'picklist' || type === 'multipicklist') field.options = options ?? [];
	return field;
}

/**
 * Reads the schema response: `unifiedFields` at the top or under `data` (the service's
 * envelope). Returns undefined when there is no field list at all.
 */
export function readLeadSchema(body: unknown): LeadField[] | undefined {
	const candidates = [asRecord(body), asRecord(unwrapEnvelope(body))];
	let list: unknown[] | undefined;
	for (const candidate of candidates) {
		const found = candidate?.unifiedFields ?? candidate?.fields;
		if (Array.isArray(found)) {
			list = found;
			break;
		}
	}
	if (!list && Array.isArray(unwrapEnvelope(body))) list = unwrapEnvelope<unknown[]>(body);
	if (!list) return undefined;
	const fields: LeadField[] = [];
	const seen = new Set<string>();
	for (const raw of list) {
		const field = readLeadField(raw);
		if (field && !seen.has(field.fieldId)) {
			seen.add(field.fieldId);
			fields.push(field);
		}
	}
	return fields;
}

/** "First name (firstName)": how errors name a field, so the user finds it in the portal and in n8n. */
export function fieldName(field: Pick<LeadField, 'fieldId' | 'label'>): string {
	return field.label && field.label !== field.fieldId
		? `${field.label} (${field.fieldId})`
		: field.fieldId;
}
