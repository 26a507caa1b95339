import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { ListReader } from '../../shared/transport/paging';
import { leadFullName } from '../../shared/leads';
import { isRecord } from '../../shared/transport/record';

/** Leads one search call reads at most when it filters; the pagination token carries on from there. */
const LEADS_PER_SEARCH = 500;
/** Matches that are enough for one answer: the editor asks for more when the user scrolls. */
const RESULTS_PER_SEARCH = 50;

function leadLabel(lead: IDataObject): string {
	const name = leadFullName(lead);
	const email = typeof lead.email === 'string' ? lead.email : '';
	if (name && email) return `${name} <${email}>`;
	return name || email || String(lead.id);
}

function matches(lead: IDataObject, filter: string): boolean {
	const haystack = [lead.firstName, lead.lastName, lead.email, lead.companyName, lead.id]
		.filter((part) => typeof part === 'string' || typeof part === 'number')
		.join(' ')
		.toLowerCase();
	return filter
		.split(/\s+/)
		.filter(Boolean)
		.every((word) => haystack.includes(word));
}

/** The lead picker: the service cannot search, so listed leads are filtered here. */
export async function searchLeads(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const wanted = (filter ?? '').trim().toLowerCase();
	const reader = new ListReader<unknown>(this, {
		path: '/leads',
		what: 'list of leads',
		resumeToken: paginationToken,
	});
	const results: INodeListSearchItems[] = [];
	let read = 0;
	while (results.length < RESULTS_PER_SEARCH && read < LEADS_PER_SEARCH) {
		const page = await reader.nextPage();
		if (page === undefined) break;
		read += page.length;
		for (const lead of page) {
			if (
				!isRecord(lead) ||
				lead.id === undefined ||
				lead.id === null ||
				(wanted && !matches(lead, wanted))
			)
				continue;
			results.push({ name: leadLabel(lead), value: String(lead.id) });
		}
	}
	await reader.settle();
	return { results, paginationToken: reader.resumeToken };
}
