import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../shared/transport/connection';
import { isRecord } from '../../shared/transport/record';
import { registerNodeMemory } from '../../shared/state/processMemory';
import { StaticStore } from '../../shared/state/nodeStore';
import { type LeadTopic, isLeadTopic } from '../../shared/topics';

/**
 * The node's subscriptions as saved in its static data, their signing secrets sealed. Static
 * data is visible to anyone who can open the workflow (and on n8n 1.x is copied into
 * every execution), so signing secrets are sealed: AES-256-GCM, key by HKDF-SHA256 from the
 * Client Secret, bound to the API key, workflow and node (a copied secret opens nowhere and
 * the trigger renews its subscriptions); each secret is bound to its topic and id.
 */

const FORMAT = 'v1';
const SALT = 'n8n-nodes-partner-leads/signing-secret/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealContext {
	clientSecret: string;
	clientId: string;
	companyId: string;
	workflowId: string;
	nodeId: string;
}

export class SecretBox {
	private readonly key: Buffer;

	constructor(context: SealContext) {
		const info = [
			'signing-secret',
			context.clientId,
			context.companyId,
			context.workflowId,
			context.nodeId,
		].join('\n');
		this.key = Buffer.from(
			hkdfSync('sha256', Buffer.from(context.clientSecret, 'utf8'), SALT, info, 32),
		);
	}

	/** `v1.<base64url of iv, tag, ciphertext>`; `binding` names what the secret belongs to. */
	seal(secret: string, binding: string): string {
		const iv = randomBytes(IV_BYTES);
		const cipher = createCipheriv('aes-256-gcm', this.key, iv);
		cipher.setAAD(Buffer.from(binding, 'utf8'));
		const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
		return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
	}

	/** The secret, or undefined when it was sealed under another key or binding, or tampered with. */
	open(sealed: unknown, binding: string): string | undefined {
		if (typeof sealed !== 'string' || !sealed.startsWith(`${FORMAT}.`)) return undefined;
		const bytes = Buffer.from(sealed.slice(FORMAT.length + 1), 'base64url');
		if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
		try {
			const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
			decipher.setAAD(Buffer.from(binding, 'utf8'));
			decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
			return Buffer.concat([
				decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
				decipher.final(),
			]).toString('utf8');
		} catch {
			return undefined;
		}
	}
}

/* Kept per node and credential: reading credentials in a webhook is slow (bench/README.md). */
const boxes = new Map<string, SecretBox>();

registerNodeMemory('secretBoxes', {
	get size() {
		return boxes.size;
	},
	forget: (workflowId, nodeId) => {
		const prefix = `${workflowId}\n${nodeId}\n`;
		for (const key of boxes.keys()) if (key.startsWith(prefix)) boxes.delete(key);
	},
});

function boxKey(context: IHookFunctions | ITriggerFunctions | IWebhookFunctions): string {
	const node = context.getNode();
	const credentialId = node.credentials?.[CREDENTIAL_TYPE]?.id ?? '';
	return [context.getWorkflow().id ?? '', node.id, credentialId].join('\n');
}

/** This node's box under the credential's current Client Secret, read now. */
export async function freshSecretBox(
	context: IHookFunctions | ITriggerFunctions | IWebhookFunctions,
): Promise<SecretBox> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const text = (name: string) =>
		typeof credentials[name] === 'string' ? (credentials[name] as string).trim() : '';
	const box = new SecretBox({
		clientSecret: typeof credentials.clientSecret === 'string' ? credentials.clientSecret : '',
		clientId: text('clientId'),
		companyId: text('companyId'),
		workflowId: context.getWorkflow().id ?? '',
		nodeId: context.getNode().id,
	});
	boxes.set(boxKey(context), box);
	return box;
}

/**
 * The box this process last built for the node. Its key may predate an API key change, but
 * the secrets it opens are those the service signs with, so what it verifies is genuine.
 */
export function rememberedSecretBox(
	context: IHookFunctions | IWebhookFunctions,
): SecretBox | undefined {
	return boxes.get(boxKey(context));
}

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

export const SUBSCRIPTIONS_KEY = 'subscriptions';

export const SUBSCRIPTIONS = new StaticStore<StoredSubscriptions, StoredSubscriptions, [SecretBox]>(
	{
		key: SUBSCRIPTIONS_KEY,
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

/** The stored subscriptions' ids by topic, with their URL, read without opening a secret. */
export interface SubscribedIds {
	webhookUrl: string;
	byTopic: Array<[LeadTopic, string]>;
}

export function subscribedIds(nodeData: IDataObject): SubscribedIds | undefined {
	const raw = nodeData[SUBSCRIPTIONS_KEY];
	if (!isRecord(raw) || typeof raw.webhookUrl !== 'string' || !isRecord(raw.byTopic))
		return undefined;
	const byTopic: Array<[LeadTopic, string]> = [];
	for (const [topic, entry] of Object.entries(raw.byTopic))
		if (isLeadTopic(topic) && isRecord(entry) && typeof entry.id === 'string' && entry.id !== '')
			byTopic.push([topic, entry.id]);
	return byTopic.length > 0 ? { webhookUrl: raw.webhookUrl, byTopic } : undefined;
}
