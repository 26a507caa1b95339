import type { INodeProperties } from 'n8n-workflow';

import { allOf } from '../../../shared/transport/paging';
import { returnAllOrLimit, shownFor } from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';
import { isRecord } from '../../../shared/transport/record';

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

export const description = shownFor('webhookSubscription', 'getMany', properties);

export const execute = defineOperation(async function () {
	return {
		prepare: (itemIndex) => {
			const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
			const limit = Math.floor(this.getNodeParameter('limit', itemIndex, 50) as number);
			return returnAll ? undefined : Math.max(1, limit);
		},
		run: async (itemIndex, limit: number | undefined) => {
			const subscriptions = await allOf.call(this, {
				api: 'webhooks',
				path: '',
				what: 'list of webhook subscriptions',
				itemIndex,
				limit,
			});
			return subscriptions.filter(isRecord);
		},
	};
});
