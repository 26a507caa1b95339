import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { connectionFromCredentials, CREDENTIAL_TYPE } from '../transport/connection';
import { unwrapEnvelope } from '../transport/envelope';
import type { PartnerLeadsFunctions } from '../transport/request';
import { apiRequestRaw } from '../transport/request';
import type { LeadField } from './leadSchema';
import { readLeadSchema } from './leadSchema';

/**
 * Where the node gets the lead schema. A run fetches it once and passes it to every item;
 * the editor's Lead Fields mapper asks the service each time (Refresh Field List must show a
 * changed schema), and the other dropdowns reuse its copy for a minute, so opening a node
 * does not send one schema request per dropdown.
 */

const EDITOR_CACHE_TTL_MS = 60_000;
const EDITOR_CACHE_MAX_ENTRIES = 50;

const editorCache = new Map<string, { fields: LeadField[]; expiresAt: number }>();

export interface LeadSchemaResponse {
	/** the payload as the service sent it, without its envelope */
	payload: unknown;
	fields: LeadField[];
}

/** The cache is per credential, portal and environment: a different key may see a different schema. */
async function cacheKeyOf(context: PartnerLeadsFunctions): Promise<string | undefined> {
	try {
		const connection = connectionFromCredentials(await context.getCredentials(CREDENTIAL_TYPE));
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
	editorCache.set(key, { fields, expiresAt: Date.now() + EDITOR_CACHE_TTL_MS });
}

/** Always asks the service: a run must see the schema as it is now. */
export async function fetchLeadSchemaResponse(
	this: PartnerLeadsFunctions,
): Promise<LeadSchemaResponse> {
	const body = await apiRequestRaw.call(this, {
		method: 'GET',
		path: '/schema/lead',
		what: 'lead schema',
	});
	const fields = readLeadSchema(body);
	if (!fields) {
		throw new NodeOperationError(this.getNode(), 'The lead schema answer has no list of fields', {
			description:
				"The service's answer has no list of lead fields. Check the 'API Base Address' and 'Company ID' in the credential; if they are right, the service may have changed its answer.",
		});
	}
	remember(await cacheKeyOf(this), fields);
	return { payload: unwrapEnvelope(body) as IDataObject, fields };
}

export async function fetchLeadSchema(this: PartnerLeadsFunctions): Promise<LeadField[]> {
	return (await fetchLeadSchemaResponse.call(this)).fields;
}

/** For the editor: a copy up to a minute old is good enough for a dropdown. */
export async function leadSchemaForEditor(this: PartnerLeadsFunctions): Promise<LeadField[]> {
	const key = await cacheKeyOf(this);
	const cached = key === undefined ? undefined : editorCache.get(key);
	if (cached && cached.expiresAt > Date.now()) return cached.fields;
	return await fetchLeadSchema.call(this);
}

/** Tests and a credential change in the same process start from a clean cache. */
export function clearLeadSchemaCache(): void {
	editorCache.clear();
}
