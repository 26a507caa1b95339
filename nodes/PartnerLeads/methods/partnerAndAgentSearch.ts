import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { MAX_PAGE_SIZE, pagesOf } from '../../shared/transport/paging';
import { isRecord } from '../../shared/transport/record';

/** Leads read for the IDs credited on them (the service cannot list organizations or agents). */
export const CREDIT_SEARCH_LEADS = 5 * MAX_PAGE_SIZE;

type CreditKey = 'partnerOrganizationId' | 'agentId';

async function creditedIds(
	context: ILoadOptionsFunctions,
	key: CreditKey,
	organizationId?: string,
): Promise<Map<string, number>> {
	const counts = new Map<string, number>();
	const pages = pagesOf.call(context, {
		path: '/leads',
		what: 'list of leads',
		limit: CREDIT_SEARCH_LEADS,
	});
	for await (const page of pages) {
		for (const lead of page) {
			if (!isRecord(lead)) continue;
			const id = lead[key];
			if (typeof id !== 'string' || id === '') continue;
			if (organizationId && lead.partnerOrganizationId !== organizationId) continue;
			counts.set(id, (counts.get(id) ?? 0) + 1);
		}
	}
	return counts;
}

function listed(counts: Map<string, number>, filter?: string): INodeListSearchResult {
	const wanted = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = [...counts]
		.filter(([id]) => id.toLowerCase().includes(wanted))
		.sort(([, a], [, b]) => b - a)
		.map(([id, leads]) => ({
			name: `${id} (on ${leads} ${leads === 1 ? 'lead' : 'leads'})`,
			value: id,
		}));
	return { results };
}

/** The chosen partner organization, so the agent list shows only its agents. */
function chosenOrganization(context: ILoadOptionsFunctions): string | undefined {
	let value: unknown;
	try {
		value = context.getCurrentNodeParameter('partnerOrganizationId', { extractValue: true });
	} catch {
		return undefined;
	}
	// an expression cannot be resolved here: then every agent is offered
	return typeof value === 'string' && value.trim() !== '' && !value.startsWith('=')
		? value.trim()
		: undefined;
}

export async function searchPartnerOrganizations(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return listed(await creditedIds(this, 'partnerOrganizationId'), filter);
}

export async function searchAgents(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return listed(await creditedIds(this, 'agentId', chosenOrganization(this)), filter);
}
