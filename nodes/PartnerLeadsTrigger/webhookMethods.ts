import type { IDataObject, IHookFunctions, ITriggerFunctions, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { httpCodeOf } from '../shared/transport/errors';
import { allOf } from '../shared/transport/paging';
import { apiRequest } from '../shared/transport/request';
import { recordId } from '../shared/transport/record';
import { processMemorySizes } from '../shared/state/processMemory';
import { type LeadTopic, selectedTopics } from '../shared/topics';
import { observedTopics, watchedFieldIds } from '../shared/changes/watchedFields';
import { forgetWhenDone, runsSettled, stopRunsForUnpublish } from './runs/executor';
import { openRunRecords } from './state/records';
import { nodeScope } from '../shared/state/nodeStore';
import { republishPending } from './state/republishing';
import type { StoredSubscription, StoredSubscriptions } from './state/sealedSubscriptions';
import {
	freshSecretBox,
	storedEntries,
	SUBSCRIPTIONS,
	unreadableIds,
} from './state/sealedSubscriptions';

/**
 * Subscription lifecycle n8n drives (checkExists, then create if false; delete on deactivation).
 * One subscription per selected topic; ids and signing secrets live in static data.
 */

interface RemoteSubscription {
	id: string;
	topic: string;
	url: string;
}

function webhookUrlOf(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url)
		throw new NodeOperationError(
			context.getNode(),
			'n8n did not provide a webhook URL for this trigger',
		);
	return url;
}

/** The chosen topics, and creations when fields are watched (a new lead's values are kept). */
function subscribedTopics(context: IHookFunctions): LeadTopic[] {
	const selected = selectedTopics(context.getNodeParameter('events', []));
	return observedTopics(selected, watchedFieldIds(context).length > 0);
}

function topicsOf(context: IHookFunctions): LeadTopic[] {
	const topics = subscribedTopics(context);
	if (topics.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No event selected', {
			description:
				'Choose at least one event under "Events" so the trigger knows what to subscribe to.',
		});
	}
	return topics;
}

export async function listSubscriptions(
	this: IHookFunctions | ITriggerFunctions,
): Promise<RemoteSubscription[]> {
	// every page: a subscription of this trigger on a later page must be found and removed too
	const listed = await allOf.call(this, {
		api: 'webhooks',
		path: '',
		what: 'webhook subscriptions',
	});
	const subscriptions: RemoteSubscription[] = [];
	for (const item of listed) {
		// ids may come as numbers from some services
		const id = recordId(item);
		const { topic, url } = (item ?? {}) as Record<string, unknown>;
		if (id !== undefined && typeof topic === 'string' && typeof url === 'string')
			subscriptions.push({ ...(item as RemoteSubscription), id });
	}
	return subscriptions;
}

/** Deletes one subscription; one that is already gone (404) counts as deleted. */
async function deleteSubscription(
	this: IHookFunctions | ITriggerFunctions,
	id: string,
): Promise<void> {
	try {
		await apiRequest.call(this, {
			method: 'DELETE',
			api: 'webhooks',
			path: `/${encodeURIComponent(id)}`,
			what: `webhook subscription ${id}`,
		});
	} catch (error) {
		if (httpCodeOf(error) === '404') return;
		throw new NodeOperationError(this.getNode(), error as Error, {
			message: `Could not delete webhook subscription ${id}: ${(error as Error).message}`,
		});
	}
}

/** Best effort: used while something else already failed, so its own failure is only logged. */
export async function deleteQuietly(
	this: IHookFunctions | ITriggerFunctions,
	ids: Iterable<string>,
): Promise<void> {
	for (const id of ids) {
		try {
			await deleteSubscription.call(this, id);
		} catch (error) {
			this.logger.warn(`Partner Referral Service Trigger: ${(error as Error).message}`);
		}
	}
}

/** The service refuses http and localhost URLs; the fix is in n8n's config, as the error says. */
function isHttpsRefusal(error: unknown): boolean {
	if (httpCodeOf(error) !== '400') return false;
	const record = error as { errorResponse?: JsonObject; message?: string; description?: string };
	if (record.errorResponse?.code === 'invalid_url') return true;
	return /https/i.test(`${record.message ?? ''} ${record.description ?? ''}`);
}

function subscriptionError(
	context: IHookFunctions,
	error: unknown,
	topic: LeadTopic,
	url: string,
): NodeOperationError {
	const serviceSaid = (error as Error).message;
	if (isHttpsRefusal(error)) {
		return new NodeOperationError(
			context.getNode(),
			// n8n shows only the message of an activation error, so the fix stays in it
			`The Partner Referral Service only delivers webhooks to HTTPS addresses and refused this trigger's URL ${url}. Set n8n's N8N_WEBHOOK_URL environment variable (n8n 2.35 and later; WEBHOOK_URL before 2.35 and on n8n 1.x) to n8n's public HTTPS address (for example https://n8n.example.com/), restart n8n and publish the workflow again (activate it on n8n 1.x). Where n8n cannot be reached over HTTPS (e.g. http://localhost), use the Partner Referral Service Polling Trigger instead: it needs no public address.`,
			{
				description: `The service does not send events to plain-http or localhost addresses, so n8n must be reachable from the internet over HTTPS (directly, through a reverse proxy or a tunnel) and N8N_WEBHOOK_URL (n8n 2.35 and later; WEBHOOK_URL before 2.35 and on n8n 1.x) must be that address. The service said: ${serviceSaid}`,
			},
		);
	}
	// Only a 4xx's advice fits here; for other failures it is about repeating lead creates.
	const advice = httpCodeOf(error)?.startsWith('4')
		? `${(error as { description?: string }).description ?? ''} `
		: '';
	const requestId = (error as { errorResponse?: JsonObject }).errorResponse?.requestId;
	return new NodeOperationError(
		context.getNode(),
		`Could not subscribe to "${topic}" events: ${serviceSaid}`,
		{
			description: `${advice}The node removed the subscriptions it had made for this activation, and any the service may have created despite its refusal; one it could not remove now (n8n's log says which) is removed the next time the workflow is published. Publish the workflow again (activate it on n8n 1.x) once the cause is fixed.${!advice && typeof requestId === 'string' ? ` Request ID: ${requestId}.` : ''}`,
		},
	);
}

export async function createSubscription(
	this: IHookFunctions | ITriggerFunctions,
	topic: LeadTopic,
	url: string,
): Promise<StoredSubscription> {
	const data = (await apiRequest.call(this, {
		method: 'POST',
		api: 'webhooks',
		path: '',
		body: { topic, url },
		what: 'webhook subscription',
	})) as IDataObject | undefined;
	const id = recordId(data);
	const signingSecret = data?.signingSecret;
	if (!id || typeof signingSecret !== 'string' || signingSecret === '') {
		if (id) await deleteQuietly.call(this, [id]);
		throw new NodeOperationError(
			this.getNode(),
			'The service created the subscription but answered without its id or signing secret',
			{
				description:
					'Without the signing secret no delivery could be verified, so the subscription was not kept.',
			},
		);
	}
	return { id, signingSecret };
}

/** Undoes a failed create, also at the URL (an errored create may still have been applied). */
async function rollBack(
	this: IHookFunctions,
	created: Array<[LeadTopic, string]>,
	kept: StoredSubscriptions,
): Promise<void> {
	for (const [topic] of created) delete kept.byTopic[topic];
	await deleteQuietly.call(
		this,
		created.map(([, id]) => id),
	);
	const keptIds = new Set(storedEntries(kept).map(([, subscription]) => subscription.id));
	try {
		const leftovers = (await listSubscriptions.call(this))
			.filter((item) => item.url === kept.webhookUrl && !keptIds.has(item.id))
			.map((item) => item.id);
		await deleteQuietly.call(this, leftovers);
	} catch (error) {
		this.logger.warn(
			`Partner Referral Service Trigger: could not check for leftover subscriptions (${(error as Error).message}); the next activation removes them`,
		);
	}
}

/**
 * True when each selected topic's stored subscription still exists for this URL and no other
 * subscription points at it (a crash may leave some). Reads only; create() repairs.
 */
export async function subscriptionsExist(this: IHookFunctions): Promise<boolean> {
	const stored = SUBSCRIPTIONS.read(this.getWorkflowStaticData('node'), await freshSecretBox(this));
	const url = webhookUrlOf(this);
	const topics = subscribedTopics(this);
	if (!stored || stored.webhookUrl !== url || topics.length === 0) return false;
	// A secret that cannot be read verifies nothing: create() replaces the subscription.
	if (unreadableIds(stored).length > 0) return false;
	const storedTopics = storedEntries(stored).map(([topic]) => topic);
	if (storedTopics.length !== topics.length || !topics.every((topic) => stored.byTopic[topic]))
		return false;

	const remote = await listSubscriptions.call(this);
	const ours = new Set(storedEntries(stored).map(([, subscription]) => subscription.id));
	const allPresent = storedEntries(stored).every(([topic, subscription]) =>
		remote.some((item) => item.id === subscription.id && item.topic === topic && item.url === url),
	);
	const strangers = remote.some((item) => item.url === url && !ours.has(item.id));
	return allPresent && !strangers;
}

/** Makes the service match the selected topics; rolls back its creations on failure. */
export async function createSubscriptions(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const url = webhookUrlOf(this);
	const topics = topicsOf(this);
	const box = await freshSecretBox(this);
	const previous = SUBSCRIPTIONS.read(nodeData, box);
	const remote = await listSubscriptions.call(this);

	const kept: StoredSubscriptions = { webhookUrl: url, byTopic: {}, unreadable: {} };
	if (previous?.webhookUrl === url) {
		for (const topic of topics) {
			const subscription = previous.byTopic[topic];
			const stillThere = remote.some(
				(item) => item.id === subscription?.id && item.topic === topic && item.url === url,
			);
			if (subscription && stillThere) kept.byTopic[topic] = subscription;
		}
	}
	const keptIds = new Set(storedEntries(kept).map(([, subscription]) => subscription.id));
	const stale = remote
		.filter((item) => item.url === url && !keptIds.has(item.id))
		.map((item) => item.id);
	// Subscriptions stored for another URL are from an earlier activation (n8n's address
	// changed). In test mode ('manual': the editor's "listen for test event") they belong to the
	// active workflow and must stay.
	if (previous && previous.webhookUrl !== url && this.getMode() !== 'manual') {
		stale.push(...storedEntries(previous).map(([, subscription]) => subscription.id));
	}
	// From here on static data describes only what is known to exist, so a failure leaves
	// delete() nothing wrong to act on.
	SUBSCRIPTIONS.save(nodeData, kept, box);
	for (const id of new Set(stale)) await deleteSubscription.call(this, id);
	// Unreadable secrets this key does not list were made with an older key: removed if possible,
	// never failing activation. Ones listed for another URL may serve a copied workflow: kept.
	const remoteIds = new Set(remote.map((item) => item.id));
	await deleteQuietly.call(
		this,
		unreadableIds(previous).filter((id) => !stale.includes(id) && !remoteIds.has(id)),
	);

	const created: Array<[LeadTopic, string]> = [];
	for (const topic of topics) {
		if (kept.byTopic[topic]) continue;
		try {
			const subscription = await createSubscription.call(this, topic, url);
			kept.byTopic[topic] = subscription;
			created.push([topic, subscription.id]);
		} catch (error) {
			await rollBack.call(this, created, kept);
			if (storedEntries(kept).length > 0) SUBSCRIPTIONS.save(nodeData, kept, box);
			else SUBSCRIPTIONS.clear(nodeData);
			throw subscriptionError(this, error, topic, url);
		}
	}
	SUBSCRIPTIONS.save(nodeData, kept, box);
	return true;
}

/**
 * Unpublished, or a new version published: no run starts any more, the subscriptions are deleted,
 * the executions under way get a moment to end, and every record is written into the static data
 * n8n saves next, so what was accepted runs at the next publish and nothing runs twice. Those that
 * fail to delete stay stored for a retry (n8n would not save the static data of a delete that threw).
 */
export async function deleteSubscriptions(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const scope = nodeScope(this);
	const unpublishing = stopRunsForUnpublish(scope, webhookUrlOf(this));
	const box = await freshSecretBox(this);
	const stored = SUBSCRIPTIONS.read(nodeData, box);
	const remaining: StoredSubscriptions = {
		webhookUrl: stored?.webhookUrl ?? '',
		byTopic: {},
		unreadable: {},
	};
	// Their secrets are lost anyway; one made with an earlier key may not be ours to delete.
	await deleteQuietly.call(this, unreadableIds(stored));
	const failures: string[] = [];
	for (const [topic, subscription] of storedEntries(stored)) {
		try {
			await deleteSubscription.call(this, subscription.id);
		} catch (error) {
			remaining.byTopic[topic] = subscription;
			failures.push((error as Error).message);
		}
	}
	if (unpublishing) await runsSettled(scope);
	openRunRecords(this).writeBack();
	if (failures.length > 0) {
		SUBSCRIPTIONS.save(nodeData, remaining, box);
		this.logger.warn(
			`Partner Referral Service Trigger could not remove ${failures.length} webhook subscription(s); they stay recorded and are removed the next time the workflow is published or unpublished (activated or deactivated on n8n 1.x): ${failures.join(' ')}`,
			{ node: this.getNode().name },
		);
	} else SUBSCRIPTIONS.clear(nodeData);
	// n8n 1.x's clean-up between its tries to publish the node again: what it kept is still needed
	if (!republishPending(scope)) forgetWhenDone(this.getWorkflow().id, this.getNode().id);
	// At debug level: lets an operator see that publishing and unpublishing leaves nothing behind.
	this.logger.debug(
		'Partner Referral Service Trigger unsubscribed; entries still kept per memory',
		{
			processMemory: processMemorySizes(),
		},
	);
	return true;
}
