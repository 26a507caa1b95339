import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteSubscription from './delete.operation';
import * as getMany from './getMany.operation';

export { create, getMany };
// `delete` is a reserved word, so the module is exported under the operation's name here.
export { deleteSubscription as delete };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhookSubscription'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Subscribe an address to one lead event; returns its signing secret',
				action: 'Create a webhook subscription',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a webhook subscription permanently',
				action: 'Delete a webhook subscription',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'Retrieve a list of the webhook subscriptions of this API key',
				action: 'Get many webhook subscriptions',
			},
		],
		default: 'create',
	},
	...create.description,
	...deleteSubscription.description,
	...getMany.description,
];
