import type { IDataObject } from 'n8n-workflow';

import { isoTimeMs } from '../isoTime';
import { getLead } from '../leads';
import { httpCodeOf } from '../transport/errors';
import type { PartnerLeadsFunctions } from '../transport/request';
import type { LeadChange } from './judge';

/**
 * A change found by listing, as the item a delivery of it gives: `event` (id, topic, the
 * lead's time) and, with Fetch Full Lead, the lead; marked by the caller (`mark: true`), so
 * a workflow can tell how it came. Also the version that ran: the fetched lead may be newer.
 */
export async function outputFor(
	context: PartnerLeadsFunctions,
	change: LeadChange,
	fetchFullLead: boolean,
	mark: string,
): Promise<{ json: IDataObject; version: number }> {
	const timestamp = String(change.lead.updatedAt ?? change.lead.createdAt);
	const json: IDataObject = {
		event: { id: change.id, topic: change.topic, timestamp },
		[mark]: true,
	};
	if (!fetchFullLead) return { json, version: change.version };
	// The same full lead a delivery gives (a listed lead may carry fewer fields); a lead
	// deleted since it was listed still runs, as a delivery's would.
	const lead = await getLead.call(context, change.id).catch((error: unknown) => {
		if (httpCodeOf(error) === '404') return undefined;
		throw error;
	});
	if (!lead) {
		json.leadNotFound = true;
		return { json, version: change.version };
	}
	json.lead = lead;
	return { json, version: Math.max(change.version, isoTimeMs(lead.updatedAt) ?? 0) };
}

/** A lead gone from the list, as the item a delete delivery gives, marked by the caller. */
export function deleteOutputFor(id: string, timestamp: string, mark: string): IDataObject {
	return { event: { id, topic: 'lead/delete', timestamp }, [mark]: true };
}
