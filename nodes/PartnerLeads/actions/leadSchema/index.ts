import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['leadSchema'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					"Get the portal's lead fields: standard and custom fields, types and picklist values",
				action: 'Get the lead schema',
			},
		],
		default: 'get',
	},
	...get.description,
];
