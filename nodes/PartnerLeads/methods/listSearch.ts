import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { isLead } from '../helpers/leadOutput';
import { readListPage } from '../transport/envelope';
import { MAX_PAGE_SIZE } from '../transport/paging';
import { apiRequestRaw } from '../transport/request';

/** Pages one search call reads at most; the pagination token carries on from there. */
const PAGES_PER_SEARCH = 5;

function leadLabel(lead: IDataObject): string {
	const name = [lead.firstName, lead.lastName].filter((part) => typeof part === 'string' && part.trim() !== '').join(' ');
	const email = typeof lead.email === 'string' ? lead.email : '';
	if (name && email) return `${name} <${email}>`;
	return name || email || String(lead.id);
}

function matches(lead: IDataObject, filter: string): boolean {
	const haystack = [lead.firstName, lead.lastName, lead.email, lead.companyName, lead.id]
		.filter((part) => typeof part === 'string')
		.join(' ')
		.toLowerCase();
	return filter
		.split(/\s+/)
		.filter(Boolean)
		.every((word) => haystack.includes(word));
}

/**
 * The lead picker. The service's list cannot search (DESIGN.md), so a search reads up to
 * five pages of leads and keeps the ones whose name, e-mail or company match; the token is
 * the list offset to carry on from.
 */
export async function searchLeads(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const wanted = (filter ?? '').trim().toLowerCase();
	const start = Number(paginationToken);
	let skip = Number.isInteger(start) && start > 0 ? start : 0;
	const results: INodeListSearchItems[] = [];
	const pages = wanted ? PAGES_PER_SEARCH : 1;
	for (let read = 0; read < pages; read++) {
		const body = await apiRequestRaw.call(this, {
			method: 'GET',
			path: '/leads',
			qs: { skip, limit: MAX_PAGE_SIZE },
			what: 'list of leads',
		});
		const page = readListPage<unknown>(body);
		for (const lead of page.items) {
			if (!isLead(lead) || lead.id === undefined || (wanted && !matches(lead, wanted))) continue;
			results.push({ name: leadLabel(lead), value: String(lead.id) });
		}
		skip += page.items.length;
		if (page.items.length < MAX_PAGE_SIZE || page.hasMore === false) return { results };
	}
	return { results, paginationToken: String(skip) };
}
