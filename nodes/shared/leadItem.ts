import type { IDataObject } from 'n8n-workflow';

import { isoTimeMs } from './isoTime';
import { getLead } from './leads';
import type { LeadTopic } from './topics';
import { httpCodeOf } from './transport/errors';
import type { ItemRequestOptions, PartnerLeadsFunctions } from './transport/request';

/** The item a trigger gives for a lead event, the same on every path (delivery, poll, ...). */

/** A lead event: what a webhook notification carries (the lead's id, the topic and a time). */
export interface LeadEvent {
	id: string;
	topic: LeadTopic;
	timestamp: string;
}

/** The lead as read for an item: read, gone (the service answered 404), or not read. */
export type LeadRead = { lead: IDataObject } | { notFound: true } | { notRead: true };

/** Reads the event's lead if wanted; a lead gone meanwhile is `notFound` (the event still runs). */
async function readLeadFor(
	context: PartnerLeadsFunctions,
	event: Pick<LeadEvent, 'id' | 'topic'>,
	fetchFullLead: boolean,
	options: ItemRequestOptions = {},
): Promise<LeadRead> {
	if (!fetchFullLead || event.topic === 'lead/delete') return { notRead: true };
	// getLead's errors are NodeApiErrors already: passed on as they are
	const lead = await getLead.call(context, event.id, options).catch((error: unknown) => {
		if (httpCodeOf(error) === '404') return undefined;
		throw error;
	});
	return lead ? { lead } : { notFound: true };
}

export function leadItem(event: LeadEvent, read: LeadRead, marks: IDataObject = {}): IDataObject {
	const json: IDataObject = {
		event: { id: event.id, topic: event.topic, timestamp: event.timestamp },
		...marks,
	};
	if ('lead' in read) json.lead = read.lead;
	else if ('notFound' in read) json.leadNotFound = true;
	return json;
}

/** The event's item with its lead read now, and the lead's updatedAt: how every run starts. */
export async function readEventItem(
	context: PartnerLeadsFunctions,
	event: LeadEvent,
	how: { fetchFullLead: boolean; marks: IDataObject; read?: ItemRequestOptions },
): Promise<{ json: IDataObject; lead?: IDataObject; updatedMs?: number }> {
	const read = await readLeadFor(context, event, how.fetchFullLead, how.read);
	const json = leadItem(event, read, how.marks);
	if (!('lead' in read)) return { json };
	return { json, lead: read.lead, updatedMs: isoTimeMs(read.lead.updatedAt) };
}
