import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { parallelRequestsOption, runItems } from '../../helpers/itemRunner';
import { simplifyLead } from '../../helpers/leadOutput';
import { getLead, leadIdParameter } from '../../helpers/leadRequests';
import { leadIdLocator, requestOptions } from '../common.descriptions';

const properties: INodeProperties[] = [
	leadIdLocator,
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return a simplified version of the response instead of the raw data: ID, name, email, status, value, partner organization, agent and timestamps',
	},
	requestOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['lead'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await runItems.call(
		this,
		items.length,
		parallelRequestsOption(this),
		async (itemIndex, pacing) => {
			const lead = await getLead.call(this, leadIdParameter(this, itemIndex), itemIndex, pacing);
			const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
			return [{ json: simplify ? simplifyLead(lead) : lead, pairedItem: { item: itemIndex } }];
		},
	);
}
