import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { LeadEvent } from '../events';
import type { LeadVersion } from '../../shared/changes/versions';
import type { WatchedRecord } from '../watchedLeads';
import { packKeptLead } from '../watchedLeads';
import type { RunExecutor, RunOutcome } from './executor';
import { RunRecords } from './records';

/**
 * A delivery reaching the process where the trigger's `trigger()` runs: the event runs through
 * it, and the delivery waits for the execution to finish. Only then is the run recorded in this
 * request's static data, which n8n saves before it sends the answer (a webhook that returns a
 * response and no execution): the 200 always follows a finished run saved as run.
 *
 * A run longer than DELIVERY_HOLD.ms is answered 503: the service retries, and the retry that finds the
 * run finished gets the 200 (and saves it). The event is safe meanwhile: it is in flight in
 * static data, saved with the emit that started it.
 */

/**
 * How long a delivery waits for its run: below the delivery timeout of webhook senders (the
 * service's is not published; 10 s is common). Tests shorten it; n8n never changes it.
 */
export const DELIVERY_HOLD = { ms: 8_000 };

type Answer = { status: number; body: IDataObject };

function answerItself(context: IWebhookFunctions, answer: Answer): IWebhookResponseData {
	context.getResponseObject().status(answer.status).json(answer.body);
	return { noWebhookResponse: true };
}

const NOT_FINISHED: Record<Exclude<RunOutcome, 'finished'> | 'stillRunning', Answer> = {
	stillRunning: {
		status: 503,
		body: {
			error: 'still_running',
			message: 'The workflow is still running for this event; retry later',
		},
	},
	notStarted: {
		status: 503,
		body: { error: 'not_started', message: 'n8n could not start the workflow; retry later' },
	},
	busy: {
		status: 503,
		body: { error: 'busy', message: 'Too many runs of this trigger are under way; retry later' },
	},
};

async function withinHold(run: Promise<RunOutcome>): Promise<RunOutcome | 'stillRunning'> {
	const stop = new AbortController();
	const expired = sleep(DELIVERY_HOLD.ms, stop.signal).then(
		() => 'stillRunning' as const,
		() => 'stillRunning' as const,
	);
	try {
		return await Promise.race([run, expired]);
	} finally {
		stop.abort();
	}
}

export interface HeldEvent {
	event: LeadEvent;
	/** the deduplication key of the event */
	key: string;
	json: IDataObject;
	version: LeadVersion;
	/** its run was in flight when n8n stopped */
	interrupted: boolean;
	scope: string;
	maxAgeSeconds: number;
	/** the lead's watched values, kept when its run starts */
	watch?: WatchedRecord;
}

/** Runs the event through the executor and answers once its execution finished. */
export async function runAndAnswer(
	context: IWebhookFunctions,
	executor: RunExecutor,
	held: HeldEvent,
): Promise<IWebhookResponseData> {
	const { event } = held;
	const outcome = await withinHold(
		executor.start({
			run: {
				key: held.key,
				topic: event.topic,
				leadId: event.id,
				timestamp: event.timestamp,
				origin: 'delivered',
				watchedBefore: packKeptLead(held.watch?.before),
			},
			json: held.json,
			version: held.version,
			onlyIfInFlight: held.interrupted,
			watch: held.watch,
		}),
	);
	// What this process knows goes into this request's static data: saved by n8n after this.
	new RunRecords(context.getWorkflowStaticData('node'), held.scope, held.maxAgeSeconds).writeBack();
	if (outcome !== 'finished') return answerItself(context, NOT_FINISHED[outcome]);
	// No execution from here (it ran through trigger()): n8n saves static data, then answers.
	return { webhookResponse: { received: true } };
}
