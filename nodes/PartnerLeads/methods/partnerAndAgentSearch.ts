import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { valuesOnLeads } from '../../shared/leadSample';

type CreditKey = 'partnerOrganizationId' | 'agentId';

/** The IDs credited on the first leads (the service cannot list organizations or agents). */
async function creditedIds(
	context: ILoadOptionsFunctions,
	key: CreditKey,
	organizationId?: string,
): Promise<Map<string, number>> {
	const { counts } = await valuesOnLeads(context, (lead) => {
		if (organizationId && lead.partnerOrganizationId !== organizationId) return undefined;
		const id = lead[key];
		return typeof id === 'string' && id !== '' ? id : undefined;
	});
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
