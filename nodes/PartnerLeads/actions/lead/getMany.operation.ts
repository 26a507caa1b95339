import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { errorItem, withItemIndex } from '../../helpers/itemRunner';
import { leadPredicateFrom } from '../../helpers/leadFilters';
import { isLead, simplifyLead } from '../../helpers/leadOutput';
import { pagesOf } from '../../transport/paging';
import { returnAllOrLimit } from '../common.descriptions';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		hint: 'The service cannot filter its list, so the node reads the leads page by page and keeps the matching ones',
		options: [
			{
				displayName: 'Agent ID',
				name: 'agentId',
				type: 'string',
				default: '',
				description: 'Only leads credited to this agent',
			},
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'Only leads created after this time (a time without a zone is read as UTC)',
			},
			{
				displayName: 'Partner Organization ID',
				name: 'partnerOrganizationId',
				type: 'string',
				default: '',
				description: 'Only leads credited to this partner organization',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'e.g. active',
				description: 'Only leads with this status (any letter case)',
			},
			{
				displayName: 'Updated After',
				name: 'updatedAfter',
				type: 'dateTime',
				default: '',
				description: 'Only leads changed after this time (a time without a zone is read as UTC)',
			},
		],
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return a simplified version of the response instead of the raw data: ID, name, email, status, value, partner organization, agent and timestamps',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['lead'], operation: ['getMany'] } },
	properties,
);

/**
 * Pages are turned into output items as they arrive, so "Return All" holds one page of the
 * service's answer at a time. Without filters, Limit also bounds the requests: Limit 150
 * asks for 100 and then for the rest.
 */
async function leadsForItem(
	this: IExecuteFunctions,
	itemIndex: number,
	output: INodeExecutionData[],
): Promise<void> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? Infinity
		: Math.max(1, Math.floor(this.getNodeParameter('limit', itemIndex, 50) as number));
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	const matches = leadPredicateFrom(this.getNode(), filters);

	let count = 0;
	const pages = pagesOf.call(this, {
		path: '/leads',
		what: 'list of leads',
		itemIndex,
		// with filters, Limit counts matching leads: the list is read until enough match
		limit: returnAll || matches ? undefined : limit,
	});
	for await (const page of pages) {
		for (const lead of page) {
			if (!isLead(lead) || (matches && !matches(lead))) continue;
			output.push({ json: simplify ? simplifyLead(lead) : lead, pairedItem: { item: itemIndex } });
			if (++count >= limit) return;
		}
	}
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const mark = output.length;
		try {
			await leadsForItem.call(this, itemIndex, output);
		} catch (caught) {
			const error = withItemIndex(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			// Leads of a list that broke off are dropped: a partial list would look complete.
			output.length = mark;
			output.push(errorItem(error, itemIndex));
		}
	}
	return output;
}
