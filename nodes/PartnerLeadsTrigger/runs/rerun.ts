import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { getLead } from '../../shared/leads';
import { isRecord } from '../../shared/record';
import { httpCodeOf } from '../../shared/transport/errors';
import { isoTimeMs } from '../../shared/isoTime';
import type { LeadVersion } from '../../shared/changes/versions';
import { fetchesFullLead, watchSettingsOf, withChanges } from '../../shared/changes/watchedFields';
import type { WatchedRecord } from '../watchedLeads';
import { unpackKeptLead, WatchedLeads } from '../watchedLeads';
import { watchedOutcome } from '../watchedOutcome';
import type { RunExecutor } from './executor';
import type { InFlightRun } from './inFlight';

/**
 * After n8n was stopped hard (a kill, a power cut), the runs it left in flight run again, marked
 * (executor.ts RERUN_MARK): each may have run in part or in full. A run interrupted this many
 * times is given up with an error in n8n's log, so that an event whose execution stops n8n
 * every time (memory) cannot keep it restarting.
 */
export const MAX_RUN_ATTEMPTS = 3;

type RerunItem = { json: IDataObject; version: LeadVersion; watch?: WatchedRecord };

/** The item of a run as its first run gave it: the event, and the lead fetched anew. */
async function itemOf(
	context: ITriggerFunctions,
	run: InFlightRun,
	scope: string,
): Promise<RerunItem> {
	const json: IDataObject = {
		event: { id: run.leadId, topic: run.topic, timestamp: run.timestamp },
	};
	if (run.origin === 'recovered') json.recovered = true;
	const eventMs = isoTimeMs(run.timestamp) ?? 0;
	const byEvent: LeadVersion = { ms: eventMs, exact: run.origin === 'recovered' };
	if (!fetchesFullLead(context) || run.topic === 'lead/delete') return { json, version: byEvent };
	const lead = await getLead.call(context, run.leadId).catch((error: unknown) => {
		if (httpCodeOf(error) === '404') return undefined;
		throw error;
	});
	const watch = await watchedAgain(context, run, scope, isRecord(lead) ? lead : undefined);
	if (watch.changes) withChanges(json, watch.changes);
	if (!isRecord(lead)) {
		json.leadNotFound = true;
		return { json, version: byEvent, watch: watch.record };
	}
	json.lead = lead;
	const updatedMs = isoTimeMs(lead.updatedAt);
	const version = updatedMs === undefined ? byEvent : { ms: updatedMs, exact: true };
	return { json, version, watch: watch.record };
}

/** Watched fields: the changes from the values before the interrupted run (the same `from`). */
async function watchedAgain(
	context: ITriggerFunctions,
	run: InFlightRun,
	scope: string,
	lead: IDataObject | undefined,
) {
	const settings = watchSettingsOf(context);
	const watched = new WatchedLeads(context.getWorkflowStaticData('node'), scope, settings.fields);
	return await watchedOutcome(context, watched, settings, {
		leadId: run.leadId,
		topic: run.topic,
		lead,
		fallbackMs: isoTimeMs(run.timestamp) ?? 0,
		selected: true,
		rerun: { before: unpackKeptLead(run.watchedBefore) },
	});
}

/**
 * Starts again every run left in flight that is not under way in this process. Runs that cannot
 * be prepared now (the lead cannot be fetched) stay in flight for the next call.
 */
export async function rerunInterrupted(
	context: ITriggerFunctions,
	executor: RunExecutor,
	stopped: () => boolean,
): Promise<number> {
	let started = 0;
	for (const run of executor.records().inFlight.all()) {
		if (stopped()) break;
		if (executor.joined(run.key)) continue;
		if (run.attempts >= MAX_RUN_ATTEMPTS) {
			giveUp(context, executor, run);
			continue;
		}
		try {
			const { json, version, watch } = await itemOf(context, run, executor.scope);
			const { key, topic, leadId, timestamp, origin, watchedBefore } = run;
			void executor.start({
				run: { key, topic, leadId, timestamp, origin, watchedBefore },
				json,
				version,
				onlyIfInFlight: true,
				watch,
			});
			started++;
		} catch (error) {
			context.logger.warn(
				`Partner Referral Service Trigger could not prepare the run again of an event whose run was interrupted, trying again later: ${(error as Error).message}`,
				{ node: context.getNode().name, topic: run.topic },
			);
		}
	}
	return started;
}

function giveUp(context: ITriggerFunctions, executor: RunExecutor, run: InFlightRun): void {
	executor.records().inFlight.finish(run.key);
	context.logger.error(
		`Partner Referral Service Trigger gave up an event: its run was interrupted ${run.attempts} times (n8n stopped while it ran each time, e.g. out of memory). Lead ${run.leadId}, ${run.topic} at ${run.timestamp}: run it by hand if it matters.`,
		{ node: context.getNode().name, topic: run.topic },
	);
}
