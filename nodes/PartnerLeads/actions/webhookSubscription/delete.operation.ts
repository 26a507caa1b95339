import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/itemRunner';
import { isLead } from '../../helpers/leadOutput';
import { apiRequest } from '../../transport/request';

const properties: INodeProperties[] = [
	{
		displayName: 'Subscription ID',
		name: 'subscriptionId',
		type: 'string',
		required: true,
		default: '',
		description: 'ID of the subscription to delete, as Create or Get Many returned it',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, 1, async (itemIndex) => {
		const subscriptionId = String(this.getNodeParameter('subscriptionId', itemIndex, '')).trim();
		if (!subscriptionId) {
			throw new NodeOperationError(this.getNode(), 'No subscription ID given', {
				itemIndex,
				description: 'Enter the ID of the subscription to delete; Webhook Subscription > Get Many lists them.',
			});
		}
		const payload = await apiRequest.call(this, {
			method: 'DELETE',
			api: 'webhooks',
			path: `/${encodeURIComponent(subscriptionId)}`,
			what: `webhook subscription ${subscriptionId}`,
			itemIndex,
		});
		// The answer's shape is not specified (spec section 4): an empty one still means deleted.
		const json: IDataObject = isLead(payload) ? { id: subscriptionId, deleted: true, ...payload } : { id: subscriptionId, deleted: true };
		return [{ json, pairedItem: { item: itemIndex } }];
	});
}
