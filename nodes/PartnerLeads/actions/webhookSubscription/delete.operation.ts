import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport/request';
import { isRecord } from '../../../shared/transport/record';
import { defineOperation } from '../common/defineOperation';
import { locator, locatorValue, shownFor } from '../common/descriptions';

const properties: INodeProperties[] = [
	locator(
		'Subscription',
		'subscriptionId',
		'searchSubscriptions',
		'Select a subscription...',
		'e.g. 65f0c2a1d3e4f5a6b7c8d9f0',
		{
			required: true,
			description:
				"The subscription to delete. The list shows the subscriptions of this credential's API key.",
		},
	),
];

export const description = shownFor('webhookSubscription', 'delete', properties);

export const execute = defineOperation(async function () {
	return {
		prepare: (itemIndex) =>
			locatorValue(
				this,
				'subscriptionId',
				itemIndex,
				"No subscription chosen in 'Subscription'",
				'Pick the subscription from the list, or enter its ID (Webhook Subscription > Get Many shows them).',
			),
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
