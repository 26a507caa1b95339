import { pagesOf } from '../transport/paging';
import type { PartnerLeadsFunctions } from '../transport/request';
import { type ListedLead, readListedLead } from './listedLead';

/** Every lead (the list cannot filter by time); throws past the transport's 429 budget. */

export interface Listing {
	leads: ListedLead[];
	requests: number;
	/** the stop signal came while reading: the leads are only part of the list */
	stopped: boolean;
}

export async function listLeads(
	context: PartnerLeadsFunctions,
	/** `stopped`: true once the caller must stop (a deactivated trigger): the listing ends early */
	options: { readAhead?: number; stopped?: () => boolean } = {},
): Promise<Listing> {
	const listing: Listing = { leads: [], requests: 0, stopped: false };
	const pages = pagesOf.call(context, {
		path: '/leads',
		what: 'list of leads',
		readAhead: options.readAhead,
	}) as AsyncGenerator<unknown[]>;
	for await (const page of pages) {
		if (options.stopped?.()) {
			listing.stopped = true;
			break;
		}
		listing.requests++;
		for (const entry of page) {
			const listed = readListedLead(entry);
			if (listed) listing.leads.push(listed);
		}
	}
	return listing;
}
