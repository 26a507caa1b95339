import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/itemRunner';
import { isLead } from '../../helpers/leadOutput';
import { apiRequest } from '../../transport/request';

const properties: INodeProperties[] = [
	{
		displayName: 'Subscription',
		name: 'subscriptionId',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description:
			"The subscription to delete. The list shows the subscriptions of this credential's API key.",
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a subscription...',
				typeOptions: {
					searchListMethod: 'searchSubscriptions',
					searchable: true,
					searchFilterRequired: false,
				},
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 65f0c2a1d3e4f5a6b7c8d9f0',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, 1, async (itemIndex) => {
		const raw = this.getNodeParameter('subscriptionId', itemIndex, '', {
			extractValue: true,
		}) as unknown;
		const subscriptionId =
			typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
		if (!subscriptionId) {
			throw new NodeOperationError(this.getNode(), "No subscription chosen in 'Subscription'", {
				itemIndex,
				description:
					'Pick the subscription from the list, or enter its ID (Webhook Subscription > Get Many shows them).',
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
		const json: IDataObject = isLead(payload)
			? { id: subscriptionId, deleted: true, ...payload }
			: { id: subscriptionId, deleted: true };
		return [{ json, pairedItem: { item: itemIndex } }];
	});
}
