import type { IDataObject } from 'n8n-workflow';

import { isRecord } from './transport/record';
import type { ItemRequestOptions, PartnerLeadsFunctions } from './transport/request';
import { apiRequest } from './transport/request';

export function leadPath(leadId: string): string {
	return `/leads/${encodeURIComponent(leadId)}`;
}

function asLead(payload: unknown): IDataObject {
	return isRecord(payload) ? payload : { result: payload as IDataObject[string] };
}

export async function getLead(
	this: PartnerLeadsFunctions,
	leadId: string,
	options: ItemRequestOptions = {},
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		...options,
		method: 'GET',
		path: leadPath(leadId),
		what: `lead ${leadId}`,
	});
	return asLead(payload);
}

export async function createLead(
	this: PartnerLeadsFunctions,
	body: IDataObject,
	options: ItemRequestOptions = {},
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		...options,
		method: 'POST',
		path: '/leads',
		body,
		what: 'new lead',
	});
	return asLead(payload);
}

/** A whole lead carries its id, status and timestamps; anything less is a partial answer. */
function isWholeLead(payload: unknown, leadId: string): payload is IDataObject {
	return (
		isRecord(payload) &&
		String(payload.id) === leadId &&
		typeof payload.status === 'string' &&
		typeof payload.createdAt === 'string' &&
		typeof payload.updatedAt === 'string'
	);
}

/** PATCH may answer the whole lead, part of it or nothing; anything less is followed by a GET. */
export async function patchLead(
	this: PartnerLeadsFunctions,
	leadId: string,
	body: IDataObject,
	options: ItemRequestOptions = {},
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		...options,
		method: 'PATCH',
		path: leadPath(leadId),
		body,
		what: `lead ${leadId}`,
	});
	if (isWholeLead(payload, leadId)) return payload;
	return await getLead.call(this, leadId, options);
}

/** "Ada Lovelace": first and last name, the parts that are set. */
export function leadFullName(lead: IDataObject): string {
	return [lead.firstName, lead.lastName]
		.filter((part) => typeof part === 'string' && part.trim() !== '')
		.join(' ');
}

/** A lead's value for a schema field: custom fields live under `customFields`. */
export function leadFieldValue(lead: IDataObject, fieldId: string, custom: boolean): unknown {
	if (custom) {
		const customFields = lead.customFields;
		return isRecord(customFields) ? customFields[fieldId] : undefined;
	}
	return lead[fieldId];
}
