import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { MAIN_CONNECTION } from '../shared/connectionTypes';
import { SKETCH_NAMES_UP_TO } from '../shared/changes/idSketch';
import { figure, PACKED_LEAD_IDS, watchedValuesCost } from '../shared/figures';
import { TOPIC_NAMES_EXPRESSION } from '../shared/topics';
import { WATCHED_FIELD_LOAD_OPTIONS } from '../shared/changes/watchedFieldOptions';
import { partnerLeadsApiTest } from '../shared/credential/credentialTest';
import { leadEventProperties, optionsProperty } from '../shared/triggerProperties';
import { ACTIVATION_MESSAGE, EVENT_TRIGGER_DESCRIPTION, TRIGGER_PANEL } from './panelTexts';
import { pollLeads } from './poll';
import { DEFAULT_LIST_REQUESTS_PER_MINUTE } from './pollTiming';
import { sweepPeriods } from './sweepPeriod';

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
				displayName: `Poll Times (above) say when to look. Each look reads part of the list of leads, at most 'List Requests per Minute' requests (Options, default ${DEFAULT_LIST_REQUESTS_PER_MINUTE}; about 100 leads a request), carrying on where the last look stopped. New leads run at the next look once the list has been read through and showed where they appear; every lead is read again within ${sweepPeriods()} (a Poll Time every minute; more requests a minute, less time), so its updates run within that, and its deletion within twice that (when the first read-through that no longer lists it ends). Needs no public address (works on http://localhost); for events within seconds, use the Partner Referral Service Trigger (needs n8n reachable over HTTPS).`,
				name: 'pollingNotice',
				type: 'notice',
				default: '',
			},
			...leadEventProperties({
				events: `The lead changes that start the workflow. Deleted leads are found when a read-through of the list ends, by comparing the IDs listed with those of the last read-through: one by one up to ${figure(PACKED_LEAD_IDS.hex24)} leads with 24-character IDs (${figure(PACKED_LEAD_IDS.uuid)} with 36-character IDs like 123e4567-e89b-12d3-a456-426614174000); in a larger portal, in a compact form that stays the same size and tells apart up to ${figure(SKETCH_NAMES_UP_TO)} leads deleted or created in one read-through, each asked for before its delete runs.`,
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
					description: `How hard polling may use the service: at most this many list requests a minute. Each look spends what the minutes since the last one allow (a minute's worth at most) and reads on where the last stopped. With pages of 100 and a look every minute, every lead is read again within ${sweepPeriods()}; twice the requests, half the time.`,
				},
			]),
		],
	};

	methods = { credentialTest: { partnerLeadsApiTest }, loadOptions: WATCHED_FIELD_LOAD_OPTIONS };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollLeads.call(this);
	}
}
