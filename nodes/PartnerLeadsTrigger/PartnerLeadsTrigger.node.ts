import type {
	IHookFunctions,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { partnerLeadsApiTest } from '../shared/credential/credentialTest';
import { TOPIC_NAMES_EXPRESSION } from '../shared/topics';
import { WATCHED_FIELD_LOAD_OPTIONS } from '../shared/changes/watchedFieldOptions';
import {
	changedToProperty,
	eventsProperty,
	fetchFullLeadProperty,
	watchedFieldsProperty,
} from '../shared/triggerProperties';
import { handleDelivery } from './delivery';
import { DEFAULT_MAX_EVENT_AGE_HOURS } from './eventAge';
import { DEFAULT_CHECK_INTERVAL_MINUTES, watchForMissedEvents } from './recovery/watch';
import { createSubscriptions, deleteSubscriptions, subscriptionsExist } from './subscriptions';

export class PartnerLeadsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Referral Service Trigger',
		name: 'partnerLeadsTrigger',
		icon: {
			light: 'file:../../icons/partnerLeads.svg',
			dark: 'file:../../icons/partnerLeads.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		// readable event names, as the Events option shows them, not the service's topic values
		subtitle: TOPIC_NAMES_EXPRESSION,
		description:
			'Starts the workflow when a lead is created, updated or deleted in the Partner Referral Service',
		defaults: {
			name: 'Partner Referral Service Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerLeadsApi', required: true, testedBy: 'partnerLeadsApiTest' }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'The service only delivers to HTTPS addresses: n8n must be reachable over HTTPS, with its public address set in the WEBHOOK_URL environment variable. Without that (e.g. n8n on http://localhost), use the Partner Referral Service Polling Trigger.',
				name: 'httpsNotice',
				type: 'notice',
				default: '',
			},
			eventsProperty(
				'The lead events that start the workflow. Each one gets its own subscription on the service.',
			),
			fetchFullLeadProperty(
				'Whether to fetch the whole lead for created and updated leads. Deliveries carry only the lead ID, the event and its time; deleted leads cannot be fetched.',
			),
			watchedFieldsProperty(
				'The trigger keeps these fields\' values for every lead in the workflow\'s static data, saved with every delivery: about 50 bytes a lead for one field, 90 for five, at most 2 MB (the leads changed longest ago are forgotten first). Values over 64 characters are kept as a fingerprint: their change shows "to" without "from". The lead is always fetched, and Lead Created is subscribed to as well, to know a new lead\'s values.',
			),
			changedToProperty,
			{
				displayName: 'Recover Missed Events',
				name: 'recoverMissedEvents',
				type: 'boolean',
				default: true,
				description:
					'Whether to start the workflow for leads created or updated while n8n was stopped or unreachable, once it is back. The trigger lists the portal\'s leads shortly after n8n starts and then at the "Missed Events Check Interval". Recovered items carry "recovered": true.',
			},
			{
				displayName:
					'Deleted leads cannot be recovered: a lead deleted while n8n was stopped or unreachable starts nothing. To catch those, compare your own copy with the portal\'s leads now and then (e.g. the Partner Referral Service node\'s "Get Many" on a schedule).',
				name: 'recoveryNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { recoverMissedEvents: [true] } },
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Accept Legacy Signature',
						name: 'acceptLegacySignature',
						type: 'boolean',
						default: false,
						description:
							'Whether to accept deliveries signed only with the legacy signature. It covers only the ID, event and time, and the service is retiring it, so leave it off unless deliveries are refused without it.',
					},
					{
						displayName: 'Missed Events Check Interval (Minutes)',
						name: 'checkIntervalMinutes',
						type: 'number',
						typeOptions: { minValue: 5, maxValue: 10080 },
						default: DEFAULT_CHECK_INTERVAL_MINUTES,
						description:
							'How often to look for events that never arrived (n8n up but unreachable, e.g. a proxy down), besides the check after each start. Each check reads the whole list of leads: about one request per 100 leads, more where the service answers smaller pages.',
						displayOptions: { show: { '/recoverMissedEvents': [true] } },
					},
					{
						displayName: 'Maximum Event Age (Hours)',
						name: 'maxEventAgeHours',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 720 },
						default: DEFAULT_MAX_EVENT_AGE_HOURS,
						description:
							'Deliveries of events older than this (or more than 5 minutes in the future) start nothing: they could be old deliveries sent again. Keep it longer than the service keeps retrying a delivery. The trigger remembers up to 10,000 events within this time to run each only once.',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: { partnerLeadsApiTest },
		loadOptions: WATCHED_FIELD_LOAD_OPTIONS,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionsExist.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createSubscriptions.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteSubscriptions.call(this);
			},
		},
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await watchForMissedEvents.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery.call(this);
	}
}
