import { type IPollFunctions, NodeOperationError } from 'n8n-workflow';

import { type Listing, listLeads } from '../shared/changes/listing';
import { httpCodeOf } from '../shared/transport/errors';

/** Fewer than the default: a poll reads to the end, where each page read ahead is wasted. */
export const POLL_READ_AHEAD_PAGES = 4;

/** Reads all leads. Too many 429s stop the poll, changing nothing; the next starts from there. */
export async function listForPoll(context: IPollFunctions): Promise<Listing> {
	try {
		return await listLeads(context, { readAhead: POLL_READ_AHEAD_PAGES });
	} catch (error) {
		throw cutShort(context, error);
	}
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
