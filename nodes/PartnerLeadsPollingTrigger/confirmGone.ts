import type { IPollFunctions } from 'n8n-workflow';

import { getLead } from '../shared/leads';
import { httpCodeOf } from '../shared/transport/errors';

/**
 * Leads a sketched sweep did not list again, asked for one by one: a 404 is a delete, a lead
 * still there (listed twice, or moved past the sweep) is not. Any other answer leaves it and the
 * rest to the next look, as do the budget and the look's time.
 */
export async function confirmGone(
	context: IPollFunctions,
	maybeGone: string[],
	maxRequests: number,
	endsAtMs: number,
): Promise<{ gone: string[]; settled: number; requests: number }> {
	const gone: string[] = [];
	let settled = 0;
	for (const id of maybeGone) {
		if (settled >= maxRequests || Date.now() >= endsAtMs) break;
		try {
			await getLead.call(context, id);
		} catch (error) {
			if (httpCodeOf(error) !== '404') return { gone, settled, requests: settled + 1 };
			gone.push(id);
		}
		settled++;
	}
	return { gone, settled, requests: settled };
}
