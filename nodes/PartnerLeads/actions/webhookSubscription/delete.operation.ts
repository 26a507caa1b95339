import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport/request';
import { isRecord } from '../../../shared/transport/record';
import { defineOperation } from '../common/defineOperation';

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

export const execute = defineOperation(async function () {
	return {
		prepare: (itemIndex) => {
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
			return subscriptionId;
		},
		run: async (itemIndex, subscriptionId: string) => {
			const payload = await apiRequest.call(this, {
				method: 'DELETE',
				api: 'webhooks',
				path: `/${encodeURIComponent(subscriptionId)}`,
				what: `webhook subscription ${subscriptionId}`,
				itemIndex,
			});
			const json: IDataObject = { id: subscriptionId, deleted: true };
			return isRecord(payload) ? { ...json, ...payload } : json;
		},
	};
});
