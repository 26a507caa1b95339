import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { LEADS_SAMPLED, valuesOnLeads } from '../leadSample';

/** Shown when no lead carries a status: picking it adds no value (empty values are ignored). */
export const NO_STATUS_YET: INodePropertyOptions = {
	name: 'No Lead Has a Status Yet',
	value: '',
	description:
		"The portal has no lead with a status to list. Type your portal's value under Other Values (for example won), or create a lead in the portal and open this list again.",
};

/** "Seen on 3 of your 40 leads", or of the first leads listed when the portal has more. */
function seenOn(count: number, read: number, complete: boolean): string {
	if (!complete) return `Seen on ${count} of the first ${read} leads listed`;
	if (read === 1) return 'Seen on your only lead';
	return `Seen on ${count} of your ${read} leads`;
}

/** Each distinct status of the first LEADS_SAMPLED leads, sorted, with how many leads carry it. */
export async function statusesOnLeads(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	// the schema does not list the statuses, so they are read off leads
	const { counts, read } = await valuesOnLeads(this, ({ status }) =>
		typeof status === 'string' && status.trim() !== '' ? status : undefined,
	);
	if (counts.size === 0) return [NO_STATUS_YET];
	// a full sample may have stopped short of the portal's last leads
	const complete = read < LEADS_SAMPLED;
	return [...counts]
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([status, count]) => ({
			name: status,
			value: status,
			description: seenOn(count, read, complete),
		}));
}
