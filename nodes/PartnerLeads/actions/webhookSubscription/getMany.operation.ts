import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/itemRunner';
import { isLead } from '../../helpers/leadOutput';
import { readListPage } from '../../transport/envelope';
import { apiRequestRaw } from '../../transport/request';

const properties: INodeProperties[] = [
	{
		displayName: 'Only the subscriptions created with the API key of this credential are listed, without their signing secrets',
		name: 'ownerNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, 1, async (itemIndex) => {
		const body = await apiRequestRaw.call(this, {
			method: 'GET',
			api: 'webhooks',
			path: '',
			what: 'list of webhook subscriptions',
			itemIndex,
		});
		return readListPage<unknown>(body)
			.items.filter(isLead)
			.map((subscription) => ({ json: subscription, pairedItem: { item: itemIndex } }));
	});
}
