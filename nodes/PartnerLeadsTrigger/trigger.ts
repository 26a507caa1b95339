import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

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
import { RECOVERY_TIMING } from './recovery/timing';

/** `trigger()` runs only in the main process (or queue-mode leader): one recovery per workflow. */

/** Default check interval: a full list read every 6 hours keeps the request rate low. */
export const DEFAULT_CHECK_INTERVAL_MINUTES = 360;

/** Waits until the time or close; wakes every tick as n8n 1.x's `sleep` ignores the signal. */
async function waitUntil(dueMs: number, closing: AbortSignal): Promise<void> {
	while (!closing.aborted && Date.now() < dueMs)
		await sleep(Math.min(RECOVERY_TIMING.tickMs, dueMs - Date.now()), closing).catch(
			() => undefined,
		);
}

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
	const loop = async () => {
		let due = Date.now() + (baselineTaken ? intervalMs : RECOVERY_TIMING.firstCheckDelayMs);
		while (!isClosed()) {
			await waitUntil(due, closing.signal);
			if (isClosed()) return;
			try {
				// runs left in flight that could not be prepared yet are tried again
				executor.queue.wake();
				const check = recoverMissedEvents.call(context, executor, isClosed);
				checking = check;
				const outcome = await check;
				if (outcome.recovered > 0)
					context.logger.info(
						`Partner Referral Service Trigger found ${outcome.recovered} missed lead event(s): each runs unless Fields to Watch says nothing watched changed`,
						{ node: context.getNode().name, listRequests: outcome.listRequests },
					);
				// Changes too recent to judge are checked again once deliveries had time to arrive.
				due = Date.now() + (outcome.deferred > 0 ? RECOVERY_TIMING.settleMs + 1_000 : intervalMs);
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

export async function watchForMissedEvents(this: ITriggerFunctions): Promise<ITriggerResponse> {
	if (this.getMode() === 'manual') return manualTestRun(this);
	const ledger = openLedger(this);
	const newActivation = isNewActivation(this.getActivationMode()) || !ledger.activated;
	if (newActivation) ledger.startListening();
	// Deliveries reaching this process run through here from now on (runs/executor.ts).
	const executor = registerRunExecutor(this);
	if (newActivation) executor.records().inFlight.clear();
	const closing = new AbortController();
	// Accepted runs not started run now; interrupted ones run again, marked.
	if (!newActivation) executor.queue.wake();
	let checkInProgress: (() => Promise<unknown>) | undefined;
	const recover = this.getNodeParameter('recoverMissedEvents', true) !== false;
	// Watched fields need every lead's values, recovery or not: listed now when newly chosen.
	if (recover || watchedFieldIds(this).length > 0) {
		const listed = (newActivation || baselineDue(this)) && (await baselineAtActivation(this));
		if (recover) checkInProgress = startChecks(this, closing, executor, newActivation && listed);
	}
	return {
		// Deactivation waits for a check in progress to stop; runs under way still finish.
		closeFunction: async () => {
			closing.abort();
			unregisterRunExecutor(executor);
			await checkInProgress?.();
		},
	};
}
