import type { INodePropertyOptions } from 'n8n-workflow';

/** The service's lead event topics. Its payment topics are inactive and not offered. */
export const LEAD_TOPICS = ['lead/create', 'lead/update', 'lead/delete'] as const;

export type LeadTopic = (typeof LEAD_TOPICS)[number];

const TOPIC_NAMES: Record<LeadTopic, { name: string; description: string }> = {
	'lead/create': { name: 'Lead Created', description: 'A new lead is submitted' },
	'lead/update': { name: 'Lead Updated', description: 'An existing lead is modified' },
	'lead/delete': { name: 'Lead Deleted', description: 'A lead is deleted' },
};

export function isLeadTopic(value: unknown): value is LeadTopic {
	return typeof value === 'string' && (LEAD_TOPICS as readonly string[]).includes(value);
}

/** The selected topics, known ones only, each once, in the service's order. */
export function selectedTopics(value: unknown): LeadTopic[] {
	const chosen = Array.isArray(value) ? value : [];
	return LEAD_TOPICS.filter((topic) => chosen.includes(topic));
}

/** The name the editor shows for a topic, e.g. "Lead Created"; an unknown topic as it is. */
export function topicName(topic: unknown): string {
	const raw = typeof topic === 'string' ? topic : String(topic ?? '');
	return isLeadTopic(raw) ? TOPIC_NAMES[raw].name : raw;
}

/** The topics as options of a node parameter, in alphabetical order as n8n's editor wants. */
export const LEAD_TOPIC_OPTIONS: INodePropertyOptions[] = LEAD_TOPICS.map((topic) => ({
	name: TOPIC_NAMES[topic].name,
	value: topic,
	description: TOPIC_NAMES[topic].description,
})).sort((a, b) => a.name.localeCompare(b.name));

/** The trigger's subtitle: the chosen topics by name (an n8n expression cannot import code). */
export const TOPIC_NAMES_EXPRESSION = `={{$parameter["events"].join(", ")${LEAD_TOPICS.map(
	(topic) => `.replace("${topic}", "${TOPIC_NAMES[topic].name}")`,
).join('')}}}`;
