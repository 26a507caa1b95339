import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { refusesCredential } from '../shared/transport/errors';
import { type LeadTopic, topicName } from '../shared/topics';
import { nodeScope } from '../shared/state/nodeStore';
import { askedToPublishAgain } from './state/republishing';
import { createSubscription, deleteQuietly, listSubscriptions } from './webhookMethods';
import {
	type SecretBox,
	type StoredSubscriptions,
	freshSecretBox,
	subscribedIds,
	SUBSCRIPTIONS,
} from './state/sealedSubscriptions';
import { waitUntil } from './recovery/timing';

/**
 * trigger() checks that the service still has this trigger's subscriptions: one may go with its
 * API key (revoked: the service removes its subscriptions) or be deleted in the portal, and then
 * the service delivers nothing. A lost one is made again here, with the credential as saved now;
 * its signing secret must reach the database, and outside an emit only n8n's activation saves a
 * trigger's static data, so n8n is then asked to start the trigger again (`emitError`: on 2.x it
 * restarts trigger() and saves, on 1.x it adds the workflow again). That also shows the error in
 * the editor and runs the Error Workflow. The runs in flight wait (nothing is lost), and the next
 * trigger() carries on where this one stopped (state/republishing.ts).
 */

/**
 * - everyMs: one small request; a lost subscription is back within this, and what changed
 *   meanwhile runs through the check for missed events after it;
 * - reportEveryMs: while the key is refused, how often n8n is told again (a failed execution).
 */
export const SUBSCRIPTION_CHECK = { everyMs: 5 * 60_000, reportEveryMs: 6 * 60 * 60_000 };

function askToPublishAgain(context: ITriggerFunctions, error: NodeOperationError): void {
	askedToPublishAgain(nodeScope(context));
	context.emitError(error);
}

function topicNames(topics: LeadTopic[]): string {
	return topics.map((topic) => `"${topicName(topic)}"`).join(', ');
}

/** When n8n was last told that the key is refused (never: it is told at once). */
const NEVER_REPORTED = -Infinity;

/** The stored subscriptions, and the topics whose one the service no longer lists or whose secret is lost. */
async function lostTopics(
	context: ITriggerFunctions,
): Promise<{ stored?: StoredSubscriptions; box?: SecretBox; lost: LeadTopic[] }> {
	const nodeData = context.getWorkflowStaticData('node');
	if (!subscribedIds(nodeData)) return { lost: [] };
	const box = await freshSecretBox(context);
	const stored = SUBSCRIPTIONS.read(nodeData, box);
	if (!stored) return { lost: [] };
	const remote = await listSubscriptions.call(context);
	const present = (topic: LeadTopic, id: string | undefined) =>
		remote.some((item) => item.id === id && item.topic === topic && item.url === stored.webhookUrl);
	const topics = [...Object.keys(stored.byTopic), ...Object.keys(stored.unreadable)] as LeadTopic[];
	const lost = [...new Set(topics)].filter((topic) => !present(topic, stored.byTopic[topic]?.id));
	return { stored, box, lost };
}

/**
 * Subscribes again for the lost topics with the credential as saved now, the new secrets sealed
 * into the trigger's static data; none is kept if one fails (the next check tries again).
 */
async function subscribeAgain(
	context: ITriggerFunctions,
	stored: StoredSubscriptions,
	box: SecretBox,
	lost: LeadTopic[],
): Promise<void> {
	const renewed: StoredSubscriptions = {
		...stored,
		byTopic: { ...stored.byTopic },
		unreadable: {},
	};
	const created: string[] = [];
	let allCreated = false;
	try {
		for (const topic of lost) {
			const subscription = await createSubscription.call(context, topic, stored.webhookUrl);
			renewed.byTopic[topic] = subscription;
			created.push(subscription.id);
		}
		allCreated = true;
	} finally {
		// the service's error goes on as it came; only the half-made subscriptions go
		if (!allCreated) await deleteQuietly.call(context, created);
	}
	SUBSCRIPTIONS.save(context.getWorkflowStaticData('node'), renewed, box);
}

function lostSubscriptionError(
	context: ITriggerFunctions,
	topics: LeadTopic[],
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The Partner Referral Service no longer had this trigger's subscription for ${topicNames(topics)}, so it sent no such events: the trigger subscribed again`,
		{
			description:
				'The subscription was deleted in the portal or with Webhook Subscription > Delete, or went with its API key. n8n restarts the trigger (a second) so that the new subscription is kept; the leads changed meanwhile then run once, marked "recoveryReason": "missed" (with Recover Missed Events on). Nothing to do, unless this comes back: then find what deletes the subscriptions.',
		},
	);
}

/** What happens once a working key is saved: the trigger's next check (2.x), n8n's retries (1.x). */
function afterNewKey(checksGoOn: boolean): string {
	return checksGoOn
		? `the trigger reads it again at its next check (at most ${SUBSCRIPTION_CHECK.everyMs / 60_000} minutes later), subscribes again and runs the leads changed meanwhile, with no need to publish the workflow again (activate it, on n8n 1.x).`
		: 'n8n tries to activate the workflow again by itself, 1 second later, then ever less often (up to a day apart), reading the credential as saved each time: with a working key it subscribes again and the leads changed meanwhile run. To try at once, deactivate and activate the workflow.';
}

function refusedKeyError(
	context: ITriggerFunctions,
	error: Error,
	checksGoOn: boolean,
): NodeOperationError {
	const said = (error as { description?: string }).description ?? '';
	return new NodeOperationError(
		context.getNode(),
		`The Partner Referral Service refused this trigger's credential, so the trigger cannot check or renew its subscriptions and receives no events: ${error.message}`,
		{
			description:
				`${said} Save a working API key into the credential: ${afterNewKey(checksGoOn)}`.trim(),
		},
	);
}

/** n8n 1.x gives a trigger no saveFailedExecution: there only its activation error says it. */
function failedExecutionsGiven(context: ITriggerFunctions): boolean {
	return typeof context.saveFailedExecution === 'function';
}

/** Tells n8n the key is refused: a failed execution while the trigger keeps checking (2.x). */
function reportRefusedKey(context: ITriggerFunctions, error: Error): void {
	if (!failedExecutionsGiven(context))
		return askToPublishAgain(context, refusedKeyError(context, error, false));
	try {
		context.saveFailedExecution(refusedKeyError(context, error, true));
	} catch {
		askToPublishAgain(context, refusedKeyError(context, error, false));
	}
}

/**
 * One check: a lost subscription is made again here and n8n asked to restart the trigger, which
 * saves it (only an activation saves a trigger's static data outside an emit); a refused key is
 * reported. Returns when n8n was last told of a refused key.
 */
async function checkOnce(context: ITriggerFunctions, lastReportMs: number): Promise<number> {
	try {
		const { stored, box, lost } = await lostTopics(context);
		if (!stored || !box || lost.length === 0) return NEVER_REPORTED;
		await subscribeAgain(context, stored, box, lost);
		askToPublishAgain(context, lostSubscriptionError(context, lost));
		return NEVER_REPORTED;
	} catch (error) {
		context.logger.warn(
			`Partner Referral Service Trigger could not check or renew its subscriptions: ${(error as Error).message}`,
			{ node: context.getNode().name },
		);
		if (!refusesCredential(error)) return lastReportMs;
		if (Date.now() - lastReportMs < SUBSCRIPTION_CHECK.reportEveryMs) return lastReportMs;
		reportRefusedKey(context, error as Error);
		return Date.now();
	}
}

/** Checks every SUBSCRIPTION_CHECK.everyMs until the trigger closes. */
export function startSubscriptionChecks(
	context: ITriggerFunctions,
	closing: AbortSignal,
): () => Promise<unknown> {
	let checking: Promise<unknown> | undefined;
	const loop = async () => {
		let lastReportMs = NEVER_REPORTED;
		while (!closing.aborted) {
			await waitUntil(Date.now() + SUBSCRIPTION_CHECK.everyMs, closing);
			if (closing.aborted) return;
			const check = checkOnce(context, lastReportMs);
			checking = check;
			lastReportMs = await check;
		}
	};
	void loop();
	return async () => await checking?.catch(() => undefined);
}
