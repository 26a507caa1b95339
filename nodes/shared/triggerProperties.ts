import type { INodeProperties } from 'n8n-workflow';

import { LEAD_TOPIC_OPTIONS } from './topics';

function eventsProperty(description: string): INodeProperties {
	return {
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: [],
		options: LEAD_TOPIC_OPTIONS,
		description,
	};
}

function fetchFullLeadProperty(description: string): INodeProperties {
	return {
		displayName: 'Fetch Full Lead',
		name: 'fetchFullLead',
		type: 'boolean',
		default: true,
		description,
	};
}

/** Fields to Watch: a run only when one of them changed, with its old and new value. */
function watchedFieldsProperty(cost: string): INodeProperties {
	return {
		displayName: 'Fields to Watch',
		name: 'watchedFields',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getWatchableFields' },
		default: [],
		description: `Updated leads start the workflow only when one of these fields changed. Each item then has "changes": per changed field its old value ("from") and new one ("to"), and "changedFields". A field changed and changed back between two looks counts as unchanged. ${cost} Leave empty to start on every update. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
	};
}

/** Only When Changed To: the "becomes Won" case, with no IF node. */
const changedToProperty: INodeProperties = {
	displayName: 'Only When Changed To',
	name: 'changedTo',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Value Condition',
	default: {},
	description:
		'A watched field with a condition starts the workflow only when it changes to one of its values; the other watched fields start it on any change',
	options: [
		{
			displayName: 'Condition',
			name: 'conditions',
			values: [
				{
					displayName: 'Field Name or ID',
					name: 'field',
					type: 'options',
					typeOptions: {
						loadOptionsMethod: 'getWatchedFieldChoices',
						loadOptionsDependsOn: ['watchedFields'],
					},
					default: '',
					description:
						'One of the Fields to Watch. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Value Names or IDs',
					name: 'values',
					type: 'multiOptions',
					typeOptions: {
						loadOptionsMethod: 'getWatchedFieldValues',
						loadOptionsDependsOn: ['&field'],
					},
					default: [],
					description:
						'The values from the schema (picklists, yes/no fields). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Other Values',
					name: 'otherValues',
					type: 'string',
					default: '',
					placeholder: 'e.g. won, closed won',
					description:
						'Values the schema does not list (a status, a text or a number), separated by commas; compared as text, ignoring case',
				},
			],
		},
	],
};

/** What each trigger says in its own words about the parameters both share. */
export interface LeadEventTexts {
	events: string;
	fetchFullLead: string;
	/** what watching costs there, before the Fields to Watch description's own words */
	watchCost: string;
}

/** Events, Fetch Full Lead, Fields to Watch and Only When Changed To, in that order. */
export function leadEventProperties(texts: LeadEventTexts): INodeProperties[] {
	return [
		eventsProperty(texts.events),
		fetchFullLeadProperty(texts.fetchFullLead),
		watchedFieldsProperty(texts.watchCost),
		changedToProperty,
	];
}

/** The Options collection each trigger ends with, holding its own options. */
export function optionsProperty(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}
