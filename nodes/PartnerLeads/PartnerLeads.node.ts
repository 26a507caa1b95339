import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { MAIN_CONNECTION } from '../shared/connectionTypes';
import * as lead from './actions/lead';
import * as leadSchema from './actions/leadSchema';
import { router } from './actions/router';
import * as webhookSubscription from './actions/webhookSubscription';
import { credentialTest, listSearch, loadOptions, resourceMapping } from './methods';

export class PartnerLeads implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Referral Service',
		name: 'partnerLeads',
		icon: {
			light: 'file:../../icons/partnerLeads.svg',
			dark: 'file:../../icons/partnerLeads.dark.svg',
		},
		group: ['transform'],
		version: 1,
		// Each operation's `action` (one literal for n8n's lint; subtitle.test.ts keeps them equal).
		subtitle:
			'={{ ({"lead:create":"Create a lead","lead:upsert":"Create or update a lead","lead:get":"Get a lead","lead:getMany":"Get many leads","lead:update":"Update a lead","leadSchema:get":"Get the lead schema","webhookSubscription:create":"Create a webhook subscription","webhookSubscription:delete":"Delete a webhook subscription","webhookSubscription:getMany":"Get many webhook subscriptions"})[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] }}',
		description:
			'Create, update, list and sync partner leads, read the lead schema and manage webhook subscriptions',
		defaults: { name: 'Partner Referral Service' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'partnerLeadsApi', required: true, testedBy: 'partnerLeadsApiTest' }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Lead', value: 'lead' },
					{ name: 'Lead Schema', value: 'leadSchema' },
					{ name: 'Webhook Subscription', value: 'webhookSubscription' },
				],
				default: 'lead',
			},
			...lead.description,
			...leadSchema.description,
			...webhookSubscription.description,
		],
	};

	methods = { credentialTest, listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
