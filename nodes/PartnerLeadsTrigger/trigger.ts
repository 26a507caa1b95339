import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isNewActivation } from '../shared/changes/activation';
import { watchedFieldIds } from '../shared/changes/watchedFields';
import { type RunExecutor, registerRunExecutor, unregisterRunExecutor } from './runs/executor';
import { takeTestEvent } from './delivery/testEvent';
import {
	baselineDue,
	openLedger,
	recoverMissedEvents,
	takeBaselineIfDue,
} from './recovery/recover';
import { RECOVERY_TIMING, waitUntil } from './recovery/timing';
import { judgeEventAge, maxEventAgeSeconds } from './state/seenEvents';
import { nodeScope } from '../shared/state/nodeStore';
import { startSubscriptionChecks } from './subscriptionCheck';
import { resumesAfterReportedError } from './state/republishing';
import { subscribedIds } from './state/sealedSubscriptions';

/** `trigger()` runs only in the main process (or queue-mode leader): one recovery per workflow. */

/** Default check interval: a full list read every 6 hours keeps the request rate low. */
export const DEFAULT_CHECK_INTERVAL_MINUTES = 360;

function manualTestRun(context: ITriggerFunctions): ITriggerResponse {
	return {
		manualTriggerFunction: async () => {
			const data = takeTestEvent(context.getWorkflow().id, context.getNode().id);
			if (!data) {
				throw new NodeOperationError(
					context.getNode(),
					'The test event was received, but it is not in the process running this test execution',
					{
						description:
							'This happens when n8n runs manual executions on workers (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true). Test the trigger with the workflow published instead, or without offloading manual executions.',
					},
				);
			}
			context.emit(data);
		},
	};
}

/** Lists the portal's leads at activation (never recovered); on failure the first check does. */
async function baselineAtActivation(context: ITriggerFunctions): Promise<boolean> {
	try {
		await takeBaselineIfDue.call(context);
		return true;
	} catch (error) {
		context.logger.warn(
			`Partner Referral Service Trigger could not list the leads at activation, listing them at the first check for missed events: ${(error as Error).message}`,
			{ node: context.getNode().name },
		);
		return false;
	}
}

/** The check loop: soon after a restart (or at the interval after a new activation's listing). */
function startChecks(
	context: ITriggerFunctions,
	closing: AbortController,
	executor: RunExecutor,
	baselineTaken: boolean,
): () => Promise<unknown> {
	const options = context.getNodeParameter('options', {}) as { checkIntervalMinutes?: number };
	const minutes = Number(options.checkIntervalMinutes ?? DEFAULT_CHECK_INTERVAL_MINUTES);
	const intervalMs =
		(Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_CHECK_INTERVAL_MINUTES) * 60_000;
	const isClosed = () => closing.signal.aborted;
	let checking: Promise<unknown> | undefined;
	// when the last check began (early ones are spaced from it, failed or not)
	let checkedAtMs = Date.now();
	// whether the last check was a follow-up of one that deferred recent changes
	let followingUp = false;
	// many runs since the last check: the next one comes early (the ledger stays small)
	const ledgerGrown = () =>
		Date.now() - checkedAtMs >= RECOVERY_TIMING.earlySpacingMs &&
		openLedger(context).runsSinceCheck >= RECOVERY_TIMING.earlyAfterRuns;
	const loop = async () => {
		let due = Date.now() + (baselineTaken ? intervalMs : RECOVERY_TIMING.firstCheckDelayMs);
		while (!isClosed()) {
			await waitUntil(due, closing.signal, ledgerGrown);
			if (isClosed()) return;
			try {
				// runs left in flight that could not be prepared yet are tried again
				executor.queue.wake();
				checkedAtMs = Date.now();
				const check = recoverMissedEvents.call(context, executor, isClosed);
				checking = check;
				const outcome = await check;
				if (outcome.recovered > 0)
					context.logger.info(
						`Partner Referral Service Trigger found ${outcome.recovered} missed lead event(s): each runs unless Fields to Watch says nothing watched changed`,
						{ node: context.getNode().name, listRequests: outcome.listRequests },
					);
				// Changes too recent to judge are checked again once deliveries had time to arrive;
				// while changes keep coming (an import) each follow-up would find new ones: the next
				// is spaced as early checks are, as each reads the whole list.
				const deferred = outcome.deferred > 0;
				const followUpMs = followingUp
					? Math.max(RECOVERY_TIMING.earlySpacingMs, RECOVERY_TIMING.settleMs + 1_000)
					: RECOVERY_TIMING.settleMs + 1_000;
				due = Date.now() + (deferred ? followUpMs : intervalMs);
				followingUp = deferred;
			} catch (error) {
				context.logger.warn(
					`Partner Referral Service Trigger could not check for missed events, trying again in ${Math.round(RECOVERY_TIMING.retryDelayMs / 60_000)} minutes: ${(error as Error).message}`,
					{ node: context.getNode().name },
				);
				due = Date.now() + Math.min(intervalMs, RECOVERY_TIMING.retryDelayMs);
			}
		}
	};
	void loop();
	return async () => await checking?.catch(() => undefined);
}

/**
 * A new activation (published after an unpublish): the runs accepted before it still run, marked
 * `publishedAgain`; those older than Ignore Events Older Than are dropped, and n8n's log says so.
 */
function keepRunsAcceptedBeforeUnpublish(context: ITriggerFunctions, executor: RunExecutor): void {
	const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	const maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
	const inFlight = executor.records().inFlight;
	const dropped = inFlight.keepAcceptedBeforeUnpublish(
		(run) => judgeEventAge(run.timestamp, maxAgeSeconds).verdict === 'tooOld',
	);
	const node = context.getNode().name;
	if (inFlight.size > 0)
		context.logger.info(
			`Partner Referral Service Trigger: ${inFlight.size} lead event(s) accepted before the workflow was unpublished run now, marked "recoveryReason": "publishedAgain"`,
			{ node },
		);
	if (dropped.length > 0)
		context.logger.warn(
			`Partner Referral Service Trigger dropped ${dropped.length} lead event(s) accepted before the workflow was unpublished: they are older than Ignore Events Older Than (${maxAgeSeconds / 3600} hours)`,
			{ node, leads: dropped.map((run) => `${run.topic} ${run.leadId} ${run.timestamp}`) },
		);
}

export async function watchForMissedEvents(this: ITriggerFunctions): Promise<ITriggerResponse> {
	if (this.getMode() === 'manual') return manualTestRun(this);
	const ledger = openLedger(this);
	// n8n publishing the node again after it reported an error carries on; a user's publish starts anew
	const resumed = resumesAfterReportedError(nodeScope(this));
	const newActivation =
		!ledger.activated || (isNewActivation(this.getActivationMode()) && !resumed);
	if (resumed)
		this.logger.info(
			'Partner Referral Service Trigger carries on: n8n published the workflow again after the trigger reported a problem',
			{ node: this.getNode().name },
		);
	if (newActivation) ledger.startListening();
	// Deliveries reaching this process run through here from now on (runs/executor.ts).
	const subscribed = subscribedIds(this.getWorkflowStaticData('node'));
	const executor = registerRunExecutor(this, subscribed?.webhookUrl);
	if (newActivation) keepRunsAcceptedBeforeUnpublish(this, executor);
	const closing = new AbortController();
	// Accepted runs not started run now; interrupted ones run again, marked.
	executor.queue.wake();
	const stops = [startSubscriptionChecks(this, closing.signal)];
	const recover = this.getNodeParameter('recoverMissedEvents', true) !== false;
	// Watched fields need every lead's values, recovery or not: listed now when newly chosen.
	if (recover || watchedFieldIds(this).length > 0) {
		const listed = (newActivation || baselineDue(this)) && (await baselineAtActivation(this));
		if (recover) stops.push(startChecks(this, closing, executor, newActivation && listed));
	}
	return {
		// Deactivation waits for the checks in progress to stop; runs under way still finish.
		closeFunction: async () => {
			closing.abort();
			unregisterRunExecutor(executor);
			await Promise.all(stops.map(async (stop) => await stop()));
		},
	};
}
