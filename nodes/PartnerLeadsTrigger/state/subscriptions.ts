import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../shared/transport/record';
import { StaticStore } from '../../shared/state/nodeStore';
import { type LeadTopic, isLeadTopic } from '../../shared/topics';
import type { SecretBox } from './secretBox';

/** A subscription and its secret (the only copy: the service returns it once; stored sealed). */
export interface StoredSubscription {
	id: string;
	signingSecret: string;
}

export interface StoredSubscriptions {
	/** the webhook URL the subscriptions deliver to */
	webhookUrl: string;
	byTopic: Partial<Record<LeadTopic, StoredSubscription>>;
	/** Ids whose secret cannot be opened (new key, copied workflow, old plain text): to replace. */
	unreadable: Partial<Record<LeadTopic, string>>;
}

function bindingOf(topic: LeadTopic, id: string): string {
	return `${topic}\n${id}`;
}

/** The stored subscriptions; none when there are none or the data is unusable. */
function readSubscriptions(raw: IDataObject, box: SecretBox): StoredSubscriptions | undefined {
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

/** The stored form, the secrets sealed. */
function storedSubscriptions(value: StoredSubscriptions, box: SecretBox): IDataObject {
	const byTopic: IDataObject = {};
	for (const [topic, subscription] of storedEntries(value)) {
		byTopic[topic] = {
			id: subscription.id,
			sealedSecret: box.seal(subscription.signingSecret, bindingOf(topic, subscription.id)),
		};
	}
	// Kept by id only, so deactivation still removes them from the service.
	for (const [topic, id] of Object.entries(value.unreadable))
		if (id && !byTopic[topic]) byTopic[topic] = { id, sealedSecret: '' };
	return { webhookUrl: value.webhookUrl, byTopic };
}

export const SUBSCRIPTIONS = new StaticStore<StoredSubscriptions, StoredSubscriptions, [SecretBox]>(
	{
		key: 'subscriptions',
		name: 'subscriptions',
		read: readSubscriptions,
		stored: storedSubscriptions,
	},
);

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
