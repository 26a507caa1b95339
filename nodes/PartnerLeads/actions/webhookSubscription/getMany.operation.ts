import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/itemRunner';
import { isLead } from '../../helpers/leadOutput';
import { allOf } from '../../transport/paging';
import { returnAllOrLimit } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName:
			'Only the subscriptions created with the API key of this credential are listed, without their signing secrets',
		name: 'ownerNotice',
		type: 'notice',
		default: '',
	},
	...returnAllOrLimit,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['getMany'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, 1, async (itemIndex) => {
		const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const limit = Math.max(1, Math.floor(this.getNodeParameter('limit', itemIndex, 50) as number));
		const subscriptions = await allOf.call(this, {
			api: 'webhooks',
			path: '',
			what: 'list of webhook subscriptions',
			itemIndex,
			limit: returnAll ? undefined : limit,
		});
		return subscriptions
			.filter(isLead)
			.map((subscription) => ({ json: subscription, pairedItem: { item: itemIndex } }));
	});
}
