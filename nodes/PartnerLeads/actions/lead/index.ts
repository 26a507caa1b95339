import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as update from './update.operation';
import * as upsert from './upsert.operation';

export { create, get, getMany, update, upsert };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['lead'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a new lead',
				action: 'Create a lead',
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				description: 'Create a new lead, or update the current one if it already exists (upsert)',
				action: 'Create or update a lead',
			},
			{ name: 'Get', value: 'get', description: 'Retrieve a lead', action: 'Get a lead' },
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'Retrieve a list of leads, filtered if you like',
				action: 'Get many leads',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Update an existing lead',
				action: 'Update a lead',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getMany.description,
	...update.description,
	...upsert.description,
];
