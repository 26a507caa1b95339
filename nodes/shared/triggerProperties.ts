import type { INodeProperties } from 'n8n-workflow';

import { LEAD_TOPIC_OPTIONS } from './topics';

/** Parameters both triggers (webhooks, polling) offer, with their own explanations. */

export function eventsProperty(description: string): INodeProperties {
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

export function fetchFullLeadProperty(description: string): INodeProperties {
	return {
		displayName: 'Fetch Full Lead',
		name: 'fetchFullLead',
		type: 'boolean',
		default: true,
		description,
	};
}
