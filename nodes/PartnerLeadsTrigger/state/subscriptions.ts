import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../shared/record';
import type { LeadTopic } from '../../shared/topics';
import { isLeadTopic } from '../../shared/topics';
import type { SecretBox } from './secretBox';

/**
 * What the trigger keeps in the node's workflow static data, which n8n persists with the
 * workflow: the subscriptions it made and their signing secrets. The service returns a
 * secret only when a subscription is created, so this is the one place it exists; it is
 * stored sealed (see secretBox), never in plain text.
 */
export interface StoredSubscription {
	id: string;
	signingSecret: string;
}

export interface StoredSubscriptions {
	/** the webhook URL the subscriptions deliver to */
	webhookUrl: string;
	byTopic: Partial<Record<LeadTopic, StoredSubscription>>;
	/**
	 * Subscriptions whose secret cannot be opened (the credential got a new key, the workflow
	 * was copied, or it was stored in plain text by an earlier version): by id, to be replaced.
	 */
	unreadable: Partial<Record<LeadTopic, string>>;
}

const KEY = 'subscriptions';

function bindingOf(topic: LeadTopic, id: string): string {
	return `${topic}\n${id}`;
}

/** The stored subscriptions, or undefined when there are none or the data is unusable. */
export function readStoredSubscriptions(
	nodeData: IDataObject,
	box: SecretBox,
): StoredSubscriptions | undefined {
	const raw = nodeData[KEY];
	if (!isRecord(raw)) return undefined;
	const { webhookUrl, byTopic } = raw;
	if (typeof webhookUrl !== 'string' || !isRecord(byTopic)) return undefined;
	const result: StoredSubscriptions = { webhookUrl, byTopic: {}, unreadable: {} };
	for (const [topic, entry] of Object.entries(byTopic)) {
		if (!isLeadTopic(topic) || !isRecord(entry)) continue;
		const { id, sealedSecret } = entry;
		if (typeof id !== 'string' || id === '') continue;
		const signingSecret = box.open(sealedSecret, bindingOf(topic, id));
		if (signingSecret) result.byTopic[topic] = { id, signingSecret };
		else result.unreadable[topic] = id;
	}
	const count = Object.keys(result.byTopic).length + Object.keys(result.unreadable).length;
	return count > 0 ? result : undefined;
}

/** Every stored subscription whose secret could be read, with its topic. */
export function storedEntries(
	stored: StoredSubscriptions | undefined,
): Array<[LeadTopic, StoredSubscription]> {
	if (!stored) return [];
	return Object.entries(stored.byTopic).filter(
		(entry): entry is [LeadTopic, StoredSubscription] => entry[1] !== undefined,
	);
}

/** Ids of the stored subscriptions whose secret cannot be read. */
export function unreadableIds(stored: StoredSubscriptions | undefined): string[] {
	return stored
		? Object.values(stored.unreadable).filter((id): id is string => typeof id === 'string')
		: [];
}

/**
 * Replaces the stored subscriptions, sealing their secrets. A fresh object is assigned
 * (never mutated in place), because n8n only saves static data that it saw being assigned.
 */
export function storeSubscriptions(
	nodeData: IDataObject,
	value: StoredSubscriptions,
	box: SecretBox,
): void {
	const byTopic: IDataObject = {};
	for (const [topic, subscription] of Object.entries(value.byTopic) as Array<
		[LeadTopic, StoredSubscription | undefined]
	>) {
		if (!subscription) continue;
		byTopic[topic] = {
			id: subscription.id,
			sealedSecret: box.seal(subscription.signingSecret, bindingOf(topic, subscription.id)),
		};
	}
	// Kept by id only, so deactivation still removes them from the service.
	for (const [topic, id] of Object.entries(value.unreadable) as Array<
		[LeadTopic, string | undefined]
	>) {
		if (id && !byTopic[topic]) byTopic[topic] = { id, sealedSecret: '' };
	}
	nodeData[KEY] = { webhookUrl: value.webhookUrl, byTopic };
}

export function clearStoredSubscriptions(nodeData: IDataObject): void {
	delete nodeData[KEY];
}
