import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { MAIN_CONNECTION } from '../shared/connectionTypes';
import { figure, KEPT_LEAD_IDS, watchedValuesCost } from '../shared/figures';
import { TOPIC_NAMES_EXPRESSION } from '../shared/topics';
import { WATCHED_FIELD_LOAD_OPTIONS } from '../shared/changes/watchedFieldOptions';
import { partnerLeadsApiTest } from '../shared/credential/credentialTest';
import { leadEventProperties, optionsProperty } from '../shared/triggerProperties';
import { ACTIVATION_MESSAGE, EVENT_TRIGGER_DESCRIPTION, TRIGGER_PANEL } from './panelTexts';
import { DEFAULT_LIST_REQUESTS_PER_MINUTE, pollLeads } from './poll';

/** Polls the leads, for n8n without public HTTPS; why a node of its own: docs/design/polling.md. */
export class PartnerLeadsPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Partner Referral Service Polling Trigger',
		name: 'partnerLeadsPollingTrigger',
		icon: {
			light: 'file:../../icons/partnerLeads.svg',
			dark: 'file:../../icons/partnerLeads.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: TOPIC_NAMES_EXPRESSION,
		description:
			'Starts the workflow when leads are created, updated or deleted in the Partner Referral Service, by polling: works where n8n has no public HTTPS address',
		eventTriggerDescription: EVENT_TRIGGER_DESCRIPTION,
		activationMessage: ACTIVATION_MESSAGE,
		triggerPanel: TRIGGER_PANEL,
		defaults: { name: 'Partner Referral Service Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'partnerLeadsApi', required: true, testedBy: 'partnerLeadsApiTest' }],
		properties: [
			{
				displayName:
					"Poll Times (above) say when to look; each look reads the whole list of leads, about one request per 100 leads. A Poll Time is skipped while the last look's requests are more than 'List Requests per Minute' (Options, default 30) allows, so a portal of 10,000 leads is read about every 4 minutes, not every minute. Needs no public address (works on http://localhost); for events within seconds, use the Partner Referral Service Trigger (needs n8n reachable over HTTPS).",
				name: 'pollingNotice',
				type: 'notice',
				default: '',
			},
			...leadEventProperties({
				events: `The lead changes that start the workflow. Deleted leads are found by comparing the IDs listed with those of the last poll, for up to ${figure(KEPT_LEAD_IDS.hex24)} leads with 24-character IDs (${figure(KEPT_LEAD_IDS.uuid)} with 36-character IDs like 123e4567-e89b-12d3-a456-426614174000).`,
				fetchFullLead:
					'Whether to fetch the whole lead for created and updated leads (one request per lead). Deleted leads cannot be fetched.',
				watchCost: `${watchedValuesCost('at every poll that starts an execution')} Each changed lead is fetched to compare its values.`,
			}),
			optionsProperty([
				{
					displayName: 'List Requests per Minute',
					name: 'listRequestsPerMinute',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_LIST_REQUESTS_PER_MINUTE,
					description:
						"How hard polling may use the service: at most this many list requests a minute on average. A Poll Time is skipped while the last read's requests are not yet paid for at this rate. With pages of 100, a portal of 1,000 leads is read at every 1-minute poll and one of 10,000 about every 4 minutes (pages of 7: about every hour).",
				},
			]),
		],
	};

	methods = { credentialTest: { partnerLeadsApiTest }, loadOptions: WATCHED_FIELD_LOAD_OPTIONS };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollLeads.call(this);
	}
}
