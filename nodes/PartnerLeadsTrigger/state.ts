import type { IDataObject } from 'n8n-workflow';

import type { LeadTopic } from './events';
import { isLeadTopic } from './events';

/**
 * What the trigger keeps in the node's workflow static data, which n8n persists with the
 * workflow: the subscriptions it made and their signing secrets. The service returns a
 * secret only when a subscription is created, so this is the one place it exists.
 */
export interface StoredSubscription {
	id: string;
	signingSecret: string;
}

export interface StoredSubscriptions {
	/** the webhook URL the subscriptions deliver to */
	webhookUrl: string;
	byTopic: Partial<Record<LeadTopic, StoredSubscription>>;
}

const KEY = 'subscriptions';

function isStoredSubscription(value: unknown): value is StoredSubscription {
	if (value === null || typeof value !== 'object') return false;
	const { id, signingSecret } = value as Record<string, unknown>;
	return typeof id === 'string' && id !== '' && typeof signingSecret === 'string' && signingSecret !== '';
}

/** The stored subscriptions, or undefined when there are none or the data is unusable. */
export function readStoredSubscriptions(nodeData: IDataObject): StoredSubscriptions | undefined {
	const raw = nodeData[KEY];
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
	const { webhookUrl, byTopic } = raw as IDataObject;
	if (typeof webhookUrl !== 'string' || byTopic === null || typeof byTopic !== 'object') return undefined;
	const result: StoredSubscriptions = { webhookUrl, byTopic: {} };
	for (const [topic, subscription] of Object.entries(byTopic as IDataObject)) {
		if (isLeadTopic(topic) && isStoredSubscription(subscription)) {
			result.byTopic[topic] = { id: subscription.id, signingSecret: subscription.signingSecret };
		}
	}
	return Object.keys(result.byTopic).length > 0 ? result : undefined;
}

/** Every stored subscription with its topic. */
export function storedEntries(stored: StoredSubscriptions | undefined): Array<[LeadTopic, StoredSubscription]> {
	if (!stored) return [];
	return Object.entries(stored.byTopic).filter((entry): entry is [LeadTopic, StoredSubscription] =>
		isStoredSubscription(entry[1]),
	);
}

/**
 * Replaces the stored subscriptions. A fresh object is assigned (never mutated in place),
 * because n8n only saves static data that it saw being assigned.
 */
export function storeSubscriptions(nodeData: IDataObject, value: StoredSubscriptions): void {
	const byTopic: IDataObject = {};
	for (const [topic, subscription] of storedEntries(value)) {
		byTopic[topic] = { id: subscription.id, signingSecret: subscription.signingSecret };
	}
	nodeData[KEY] = { webhookUrl: value.webhookUrl, byTopic };
}

export function clearStoredSubscriptions(nodeData: IDataObject): void {
	delete nodeData[KEY];
}
