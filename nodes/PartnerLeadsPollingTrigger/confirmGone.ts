import type { IPollFunctions } from 'n8n-workflow';

import { type ListedLead, readListedLead } from '../shared/changes/listedLead';
import { getLead } from '../shared/leads';
import { httpCodeOf } from '../shared/transport/errors';

/** What asking for leads a sweep did not list again told. */
export interface Asked {
	/** answered 404: deleted */
	gone: string[];
	/** still there (moved in the list while it was read, or listed twice elsewhere): as they are now */
	present: ListedLead[];
	/** how many of those asked for were answered, in order; the rest are left to the next look */
	settled: number;
	requests: number;
}

export const NOTHING_ASKED: Asked = Object.freeze({
	gone: [],
	present: [],
	settled: 0,
	requests: 0,
});

/**
 * Leads a sweep did not list again, asked for one by one before their delete runs: a list read
 * over minutes can miss a lead that moved in it. A 404 is a delete; a lead still there is judged
 * as listed. Any other answer leaves it and the rest to the next look, as do the budget and the
 * look's time.
 */
export async function confirmGone(
	context: IPollFunctions,
	maybeGone: readonly string[],
	maxRequests: number,
	endsAtMs: number,
): Promise<Asked> {
	const asked: Asked = { gone: [], present: [], settled: 0, requests: 0 };
	for (const id of maybeGone) {
		if (asked.requests >= maxRequests || Date.now() >= endsAtMs) break;
		asked.requests++;
		try {
			const lead = readListedLead(await getLead.call(context, id));
			if (lead) asked.present.push(lead);
		} catch (error) {
			if (httpCodeOf(error) !== '404') break;
			asked.gone.push(id);
		}
		asked.settled++;
	}
	return asked;
}
