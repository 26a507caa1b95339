import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { refusesCredential } from '../shared/transport/errors';
import { type LeadTopic, topicName } from '../shared/topics';
import { nodeScope } from '../shared/state/nodeStore';
import { listSubscriptions } from './subscriptions';
import { subscribedIds } from './state/subscriptions';
import { waitUntil } from './recovery/timing';

/**
 * trigger() checks that the service still has this trigger's subscriptions: one may go with its
 * API key (revoked: the service removes its subscriptions) or be deleted in the portal, and then
 * the service delivers nothing. Only n8n's activation saves what a new subscription needs (its
 * signing secret), so a lost one is created again by asking n8n to publish the workflow again:
 * `emitError`, which also shows the error in the editor and runs the Error Workflow. The runs in
 * flight wait (nothing is lost), and the next trigger() carries on where this one stopped.
 */

/**
 * - everyMs: one small request; a lost subscription is back within this, and what changed
 *   meanwhile runs through the check for missed events after it;
 * - reportEveryMs: while the key is refused, how often n8n is told again (a failed execution).
 */
export const SUBSCRIPTION_CHECK = { everyMs: 5 * 60_000, reportEveryMs: 6 * 60 * 60_000 };

/**
 * Triggers that asked n8n to publish them again (emitError), until their next trigger() starts: it
 * carries on (nothing of a new activation). n8n retries for up to a day (its backoff's ceiling),
 * also across an unpublish of a failed retry, so these stay 25 hours unless taken up.
 */
const republishing = new Map<string, number>();
const REPUBLISHING = { keptMs: 25 * 60 * 60_000, atMost: 1_000 };

/** Whether this trigger() is n8n publishing the node again after it reported an error. */
export function resumesAfterReportedError(scope: string): boolean {
	const askedAtMs = republishing.get(scope);
	republishing.delete(scope);
	return askedAtMs !== undefined && Date.now() - askedAtMs < REPUBLISHING.keptMs;
}

function askToPublishAgain(context: ITriggerFunctions, error: NodeOperationError): void {
	republishing.set(nodeScope(context), Date.now());
	for (const oldest of republishing.keys()) {
		if (republishing.size <= REPUBLISHING.atMost) break;
		republishing.delete(oldest);
	}
	context.emitError(error);
}

function topicNames(topics: LeadTopic[]): string {
	return topics.map((topic) => `"${topicName(topic)}"`).join(', ');
}

/** When n8n was last told that the key is refused (never: it is told at once). */
const NEVER_REPORTED = -Infinity;

/** The stored subscriptions the service no longer lists for this trigger's URL, by topic. */
async function missingTopics(context: ITriggerFunctions): Promise<LeadTopic[]> {
	const stored = subscribedIds(context.getWorkflowStaticData('node'));
	if (!stored) return [];
	const remote = await listSubscriptions.call(context);
	return stored.byTopic
		.filter(
			([topic, id]) =>
				!remote.some(
					(item) => item.id === id && item.topic === topic && item.url === stored.webhookUrl,
				),
		)
		.map(([topic]) => topic);
}

function lostSubscriptionError(
	context: ITriggerFunctions,
	topics: LeadTopic[],
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The Partner Referral Service no longer has this trigger's subscription for ${topicNames(topics)}, so it sends no such events; n8n publishes the workflow again (activates it, on n8n 1.x) to subscribe again`,
		{
			description:
				'The subscription was deleted in the portal or with Webhook Subscription > Delete, or went with its API key. n8n subscribes again within seconds (the workflow shows as published, active on n8n 1.x, again); the leads changed meanwhile then run once, marked "recoveryReason": "missed", with Recover Missed Events on.',
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

/** One check: a lost subscription is created again through n8n, a refused key reported. */
async function checkOnce(context: ITriggerFunctions, lastReportMs: number): Promise<number> {
	let missing: LeadTopic[];
	try {
		missing = await missingTopics(context);
	} catch (error) {
		context.logger.warn(
			`Partner Referral Service Trigger could not check its subscriptions: ${(error as Error).message}`,
			{ node: context.getNode().name },
		);
		if (!refusesCredential(error)) return lastReportMs;
		if (Date.now() - lastReportMs < SUBSCRIPTION_CHECK.reportEveryMs) return lastReportMs;
		reportRefusedKey(context, error as Error);
		return Date.now();
	}
	if (missing.length > 0) askToPublishAgain(context, lostSubscriptionError(context, missing));
	return NEVER_REPORTED;
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
