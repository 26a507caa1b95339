import type {
	IHookFunctions,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { MAIN_CONNECTION } from '../shared/connectionTypes';
import { SKETCH_NAMES_UP_TO } from '../shared/changes/idSketch';
import { figure, watchedValuesCost } from '../shared/figures';
import { TOPIC_NAMES_EXPRESSION } from '../shared/topics';
import { WATCHED_FIELD_LOAD_OPTIONS } from '../shared/changes/watchedFieldOptions';
import { partnerLeadsApiTest } from '../shared/credential/credentialTest';
import { leadEventProperties, optionsProperty } from '../shared/triggerProperties';
import { handleDelivery } from './webhook';
import { MAX_LEADS_PER_EXECUTION } from './runs/places';
import { SHARED_EXECUTION_FAILED_MARK } from './runs/executor';
import { DEFAULT_MAX_EVENT_AGE_HOURS } from './state/records';
import { ACTIVATION_MESSAGE, EVENT_TRIGGER_DESCRIPTION, TRIGGER_PANEL } from './panelTexts';
import { DEFAULT_CHECK_INTERVAL_MINUTES, watchForMissedEvents } from './trigger';
import { createSubscriptions, deleteSubscriptions, subscriptionsExist } from './webhookMethods';

export class PartnerLeadsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Referral Service Trigger',
		name: 'partnerLeadsTrigger',
		icon: {
			light: 'file:../../icons/partnerLeads.svg',
			dark: 'file:../../icons/partnerLeads.dark.svg',
		},
		group: ['trigger'],
		// Not 1: n8n 2.x runs an expression isolate on every request to a version-1 webhook node.
		version: 1.1,
		// readable event names, as the Events option shows them, not the service's topic values
		subtitle: TOPIC_NAMES_EXPRESSION,
		description:
			'Starts the workflow when a lead is created, updated or deleted in the Partner Referral Service',
		eventTriggerDescription: EVENT_TRIGGER_DESCRIPTION,
		activationMessage: ACTIVATION_MESSAGE,
		triggerPanel: TRIGGER_PANEL,
		defaults: { name: 'Partner Referral Service Trigger' },
		inputs: [],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'partnerLeadsApi', required: true, testedBy: 'partnerLeadsApiTest' }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName:
					'The service only delivers to HTTPS addresses: n8n must be reachable over HTTPS, with its public address set in the N8N_WEBHOOK_URL environment variable (n8n 2.35 and later; WEBHOOK_URL before 2.35 and on n8n 1.x). Without that (e.g. n8n on http://localhost), use the Partner Referral Service Polling Trigger.',
				name: 'httpsNotice',
				type: 'notice',
				default: '',
			},
			...leadEventProperties({
				events:
					'The lead events that start the workflow. Each one gets its own subscription on the service.',
				fetchFullLead:
					'Whether to fetch the whole lead for created and updated leads. Deliveries carry only the lead ID, the event and its time; deleted leads cannot be fetched.',
				watchCost: `${watchedValuesCost('at every delivery')} The lead is always fetched, and Lead Created is subscribed to as well, to know a new lead's values.`,
			}),
			{
				displayName: 'Recover Missed Events',
				name: 'recoverMissedEvents',
				type: 'boolean',
				default: true,
				description:
					'Whether to run the workflow, once n8n is back, for leads created, updated or (with Lead Deleted among the Events) deleted while n8n was stopped or unreachable: the service does not send those events again. The trigger reads the list of leads about 20 seconds after n8n starts, then every "Missed Events Check Interval". Such items carry "recovered": true.',
			},
			{
				displayName: `Deleted leads are recovered only with Lead Deleted among the Events: the trigger compares the lead IDs it listed last with those listed now (a large portal's IDs are kept as a summary that names up to ${figure(SKETCH_NAMES_UP_TO)} deletes n8n did not receive between two checks). Deletes made while the workflow was unpublished are not seen.`,
				name: 'recoveryNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { recoverMissedEvents: [true] } },
			},
			optionsProperty([
				{
					displayName: 'Accept Legacy Signature (Not Recommended)',
					name: 'acceptLegacySignature',
					type: 'boolean',
					default: false,
					description:
						'Whether to accept deliveries that carry only the older x-svc-signature header, e.g. behind a proxy that drops x-svc-signature-v2. The older signature covers only the lead ID, event and time, not the whole delivery, and the service is retiring it: leave this off unless deliveries are refused without it.',
				},
				{
					displayName: 'Missed Events Check Interval (Minutes)',
					name: 'checkIntervalMinutes',
					type: 'number',
					typeOptions: { minValue: 5, maxValue: 10080 },
					default: DEFAULT_CHECK_INTERVAL_MINUTES,
					description:
						'How often to look for events that never arrived while n8n was running but unreachable (e.g. its proxy was down), besides the check after each start. Each check reads the whole list of leads: about one request per 100 leads, more where the service answers smaller pages.',
					displayOptions: { show: { '/recoverMissedEvents': [true] } },
				},
				{
					displayName: 'Leads per Execution Under Load',
					name: 'leadsPerExecution',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_LEADS_PER_EXECUTION },
					default: 1,
					description: `1 (the default): every lead event starts an execution of its own, as when you test the workflow with one lead. More: when events arrive faster than n8n runs them (a bulk import), up to this many leads arrive together as the items of one execution, and a bulk import runs about twice as fast. Then every node must handle several items: a Code node running once for each item, no node set to Execute Once, and $('…').item rather than .first() in expressions. When such an execution fails, each of its leads runs again in an execution of its own, marked "recoveryReason": "${SHARED_EXECUTION_FAILED_MARK.recoveryReason}", so only the lead the workflow fails on stays failed; for the others the nodes before the failure run twice.`,
				},
				{
					displayName: 'Ignore Events Older Than (Hours)',
					name: 'maxEventAgeHours',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 720 },
					default: DEFAULT_MAX_EVENT_AGE_HOURS,
					description:
						'Protection against a captured delivery being sent again later: an event older than this (or more than 5 minutes in the future) is acknowledged but starts nothing. Keep it longer than the service keeps retrying a delivery (the default, 3 days, is). Within it each event runs once: the trigger remembers up to 10,000 events.',
				},
			]),
		],
	};

	methods = { credentialTest: { partnerLeadsApiTest }, loadOptions: WATCHED_FIELD_LOAD_OPTIONS };

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
