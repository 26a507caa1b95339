import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from '../transport/request';
import type { ItemPacing } from './itemRunner';
import { isLead } from './leadOutput';

/** The lead requests the operations share, with the item index and 429 hook passed through. */

export function leadPath(leadId: string): string {
	return `/leads/${encodeURIComponent(leadId)}`;
}

/** The lead ID of a resource locator, checked so an empty one fails with a clear message. */
export function leadIdParameter(context: IExecuteFunctions, itemIndex: number): string {
	const raw = context.getNodeParameter('leadId', itemIndex, '', { extractValue: true }) as unknown;
	const leadId = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (!leadId) {
		throw new NodeOperationError(context.getNode(), "No lead chosen in 'Lead'", {
			itemIndex,
			description:
				'Pick a lead from the list, or enter its ID (an expression such as {{ $json.id }} works too).',
		});
	}
	return leadId;
}

function asLead(payload: unknown): IDataObject {
	return isLead(payload) ? payload : { result: payload as IDataObject[string] };
}

export async function getLead(
	this: IExecuteFunctions,
	leadId: string,
	itemIndex: number,
	pacing?: ItemPacing,
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		method: 'GET',
		path: leadPath(leadId),
		what: `lead ${leadId}`,
		itemIndex,
		onRateLimited: pacing?.onRateLimited,
	});
	return asLead(payload);
}

export async function createLead(
	this: IExecuteFunctions,
	body: IDataObject,
	itemIndex: number,
	pacing?: ItemPacing,
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		method: 'POST',
		path: '/leads',
		body,
		what: 'new lead',
		itemIndex,
		onRateLimited: pacing?.onRateLimited,
	});
	return asLead(payload);
}

/** A whole lead carries its id, status and timestamps; anything less is a partial answer. */
function isWholeLead(payload: unknown, leadId: string): payload is IDataObject {
	return (
		isLead(payload) &&
		String(payload.id) === leadId &&
		typeof payload.status === 'string' &&
		typeof payload.createdAt === 'string' &&
		typeof payload.updatedAt === 'string'
	);
}

/**
 * PATCH is partial; its answer is not specified (spec section 4) and may be empty or
 * partial (DESIGN.md). Then the lead is fetched again, so the output is the lead as it is.
 */
export async function patchLead(
	this: IExecuteFunctions,
	leadId: string,
	body: IDataObject,
	itemIndex: number,
	pacing?: ItemPacing,
): Promise<IDataObject> {
	const payload = await apiRequest.call(this, {
		method: 'PATCH',
		path: leadPath(leadId),
		body,
		what: `lead ${leadId}`,
		itemIndex,
		onRateLimited: pacing?.onRateLimited,
	});
	if (isWholeLead(payload, leadId)) return payload;
	return await getLead.call(this, leadId, itemIndex, pacing);
}
