import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { isRecord } from './transport/record';
import { MAX_PAGE_SIZE, pagesOf } from './transport/paging';

/** Leads read for values the service cannot list (statuses, partner organizations, agents). */
export const LEADS_SAMPLED = 5 * MAX_PAGE_SIZE;

export interface ValuesOnLeads {
	/** each value read, with how many leads carry it */
	counts: Map<string, number>;
	/** leads read: fewer than LEADS_SAMPLED means the whole portal was read */
	read: number;
}

/** Counts the values `valueOf` reads off the first LEADS_SAMPLED leads (undefined: none). */
export async function valuesOnLeads(
	context: ILoadOptionsFunctions,
	valueOf: (lead: IDataObject) => string | undefined,
): Promise<ValuesOnLeads> {
	const counts = new Map<string, number>();
	let read = 0;
	const pages = pagesOf.call(context, {
		path: '/leads',
		what: 'list of leads',
		limit: LEADS_SAMPLED,
	});
	for await (const page of pages) {
		for (const lead of page) {
			read++;
			const value = isRecord(lead) ? valueOf(lead) : undefined;
			if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
		}
	}
	return { counts, read };
}
