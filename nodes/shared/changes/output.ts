import type { IDataObject } from 'n8n-workflow';

import { leadItem, readEventItem } from '../leadItem';
import type { PartnerLeadsFunctions } from '../transport/request';
import type { LeadChange } from './judge';

/** A listed change as a delivery's item, and the version that ran (the fetch may be newer). */
export async function outputFor(
	context: PartnerLeadsFunctions,
	change: LeadChange,
	fetchFullLead: boolean,
	mark: string,
): Promise<{ json: IDataObject; version: number }> {
	const event = {
		id: change.id,
		topic: change.topic,
		timestamp: String(change.lead.updatedAt ?? change.lead.createdAt),
	};
	// The same full lead a delivery gives (a listed lead may carry fewer fields).
	const marks = { [mark]: true };
	const { json, updatedMs } = await readEventItem(context, event, { fetchFullLead, marks });
	return { json, version: Math.max(change.version, updatedMs ?? 0) };
}

/** A lead gone from the list, as the item a delete delivery gives, marked by the caller. */
export function deleteOutputFor(id: string, timestamp: string, mark: string): IDataObject {
	return leadItem({ id, topic: 'lead/delete', timestamp }, { notRead: true }, { [mark]: true });
}
