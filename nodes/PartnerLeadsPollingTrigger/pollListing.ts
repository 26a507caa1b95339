import { type IPollFunctions, NodeOperationError } from 'n8n-workflow';

import { type ListedLead, readListedLead } from '../shared/changes/listedLead';
import { httpCodeOf } from '../shared/transport/errors';
import { ListReader } from '../shared/transport/paging';

/**
 * Fewer than the default: a look reads a slice, where each page read ahead past it is wasted;
 * enough that a minute's budget (60 requests) is read in a look's time with the service 1.5 s away.
 */
export const POLL_READ_AHEAD_PAGES = 8;

/** A part of the list, read where the last look stopped. */
export interface Slice {
	leads: ListedLead[];
	/** requests sent, read ahead included */
	requests: number;
	/** where the next look carries on; undefined: this slice reached the end of the list */
	resumeToken: string | undefined;
	/** where the slice stopped, the end of the list too */
	positionToken: string;
	/** the service's clock at the slice's first answer (its Date header), when it sends one */
	serviceMs: number | undefined;
}

export interface SliceBounds {
	/** undefined: from the start of the list */
	resumeToken: string | undefined;
	maxRequests: number;
	/** n8n's clock: no page is asked for after it */
	endsAtMs: number;
}

/** Reads on from `resumeToken` within the bounds. Too many 429s stop the poll, changing nothing. */
export async function readSlice(context: IPollFunctions, bounds: SliceBounds): Promise<Slice> {
	let serviceMs: number | undefined;
	const reader = new ListReader<unknown>(context, {
		path: '/leads',
		what: 'list of leads',
		readAhead: POLL_READ_AHEAD_PAGES,
		maxRequests: bounds.maxRequests,
		resumeToken: bounds.resumeToken,
		onServiceTime: (ms) => (serviceMs ??= ms),
	});
	const leads: ListedLead[] = [];
	try {
		for (let page = await reader.nextPage(); page !== undefined; page = await reader.nextPage()) {
			for (const entry of page) {
				const listed = readListedLead(entry);
				if (listed) leads.push(listed);
			}
			if (Date.now() >= bounds.endsAtMs) break;
		}
	} catch (error) {
		throw cutShort(context, error);
	} finally {
		await reader.settle();
	}
	return {
		leads,
		requests: reader.requestsSent,
		resumeToken: reader.resumeToken,
		positionToken: reader.positionToken,
		serviceMs,
	};
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
