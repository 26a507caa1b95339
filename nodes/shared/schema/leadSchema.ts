import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { asRecord } from '../transport/record';
import { BASE_ADDRESS_FIELDS, CREDENTIAL_TYPE } from '../transport/connection';
import type { ItemRequestOptions, PartnerLeadsFunctions } from '../transport/request';
import { apiRequestRaw, connectionFor, unwrapEnvelope } from '../transport/request';
import { fieldTypeOf } from './fieldTypeNames';
import type { LeadField, PicklistOption } from './leadField';

/** The portal's lead schema, read tolerantly: the service does not fix its answer's shape. */

/** The service's standard lead fields; every other fieldId is a custom field. */
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

const STANDARD = new Set(STANDARD_LEAD_FIELD_IDS);

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
export function readPicklistOptions(entry: IDataObject): PicklistOption[] | undefined {
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

export function readLeadField(raw: unknown): LeadField | undefined {
	const entry = asRecord(raw);
	if (!entry) return undefined;
	const fieldId = text(entry.fieldId ?? entry.id ?? entry.name);
	// "__proto__" cannot be a key of the plain objects items and parameters are made of.
	if (!fieldId || fieldId === '__proto__') return undefined;
	const options = readPicklistOptions(entry);
	const type = fieldTypeOf(entry.type, options !== undefined);
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

/** Reads `unifiedFields` at the top or under `data`; undefined when there is no field list. */
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

// A run fetches the schema once; editor dropdowns reuse a copy for a minute (not one request each).

const EDITOR_CACHE_TTL_MS = 60_000;
const EDITOR_CACHE_MAX_ENTRIES = 50;

const editorCache = new Map<string, { fields: LeadField[]; fetchedAt: number }>();

/** The cache is per credential, portal and environment: a different key may see a different schema. */
async function cacheKeyOf(context: PartnerLeadsFunctions): Promise<string | undefined> {
	try {
		const connection = await connectionFor(context);
		const credentialId = context.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? '';
		return JSON.stringify([
			credentialId,
			connection.apiBaseUrl,
			connection.companyId,
			connection.clientId,
		]);
	} catch {
		// No usable credential: the request itself reports what is wrong with it.
		return undefined;
	}
}

function remember(key: string | undefined, fields: LeadField[]): void {
	if (key === undefined) return;
	editorCache.delete(key);
	if (editorCache.size >= EDITOR_CACHE_MAX_ENTRIES) {
		const oldest = editorCache.keys().next().value;
		if (oldest !== undefined) editorCache.delete(oldest);
	}
	editorCache.set(key, { fields, fetchedAt: Date.now() });
}

/** Always asks the service (a run must see the schema as it is now). */
export async function fetchLeadSchemaResponse(
	this: PartnerLeadsFunctions,
	request: ItemRequestOptions = {},
): Promise<{ payload: unknown; fields: LeadField[] }> {
	const body = await apiRequestRaw.call(this, {
		...request,
		method: 'GET',
		path: '/schema/lead',
		what: 'lead schema',
	});
	const fields = readLeadSchema(body);
	if (!fields) {
		throw new NodeOperationError(this.getNode(), 'The lead schema answer has no list of fields', {
			description: `The service's answer has no list of lead fields. Check the 'Company ID' and the API base address of the environment you use ('${BASE_ADDRESS_FIELDS.production}' or '${BASE_ADDRESS_FIELDS.nonProduction}') in the credential; if they are right, the service may have changed its answer.`,
		});
	}
	remember(await cacheKeyOf(this), fields);
	return { payload: unwrapEnvelope(body) as IDataObject, fields };
}

export async function fetchLeadSchema(this: PartnerLeadsFunctions): Promise<LeadField[]> {
	return (await fetchLeadSchemaResponse.call(this)).fields;
}

/** A cached copy up to `maxAgeMs` old, else fetched. */
export async function recentLeadSchema(
	this: PartnerLeadsFunctions,
	maxAgeMs: number,
	request: ItemRequestOptions = {},
): Promise<LeadField[]> {
	const key = await cacheKeyOf(this);
	const cached = key === undefined ? undefined : editorCache.get(key);
	const ageMs = cached ? Date.now() - cached.fetchedAt : Infinity;
	if (cached && ageMs >= 0 && ageMs < maxAgeMs) return cached.fields;
	return (await fetchLeadSchemaResponse.call(this, request)).fields;
}

/** For the editor: a copy up to a minute old is good enough for a dropdown. */
export async function leadSchemaForEditor(this: PartnerLeadsFunctions): Promise<LeadField[]> {
	return await recentLeadSchema.call(this, EDITOR_CACHE_TTL_MS);
}
