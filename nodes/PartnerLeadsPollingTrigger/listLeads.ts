import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { httpCodeOf } from '../shared/transport/errors';
import { pagesOf } from '../shared/transport/paging';

/**
 * Pages requested ahead while reading: every poll reads the whole list, and past its end
 * each page read ahead is a request for nothing, so fewer than the transport's default.
 */
export const POLL_READ_AHEAD_PAGES = 4;

export interface Listing {
	leads: IDataObject[];
	requests: number;
}

/**
 * Reads the whole list of leads (the list cannot filter by time, so every poll reads it all;
 * nodes/shared/transport/paging.ts handles page caps, order, deletions while paging and reads
 * ahead). Each request waits out 429s within the transport's bounded budget; past it the
 * poll stops with one message, changes nothing, and the next poll starts from the same point.
 */
export async function listAllLeads(context: IPollFunctions): Promise<Listing> {
	const listing: Listing = { leads: [], requests: 0 };
	const pages = pagesOf.call(context, {
		path: '/leads',
		what: 'list of leads',
		readAhead: POLL_READ_AHEAD_PAGES,
	}) as AsyncGenerator<IDataObject[]>;
	try {
		for await (const page of pages) {
			listing.requests++;
			listing.leads.push(...page);
		}
	} catch (error) {
		throw cutShort(context, error);
	}
	return listing;
}

/** A poll cut short: a 429 past the wait budget says so and what happens next. */
export function cutShort(context: IPollFunctions, error: unknown): unknown {
	if (httpCodeOf(error) !== '429') return error;
	return new NodeOperationError(
		context.getNode(),
		'The Partner Referral Service kept answering "too many requests" (429), so this poll stopped early',
		{
			description:
				'Nothing was started and nothing is lost: the next poll starts again from where this one began. If this repeats, poll less often (Poll Times) or lower "List Requests per Minute", and check what else uses the same API key.',
		},
	);
}
