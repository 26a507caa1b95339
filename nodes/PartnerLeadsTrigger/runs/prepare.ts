import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import type { LeadVersion } from '../../shared/changes/versions';
import { fetchesFullLead, watchSettingsOf, withChanges } from '../../shared/changes/watchedFields';
import { isoTimeMs } from '../../shared/isoTime';
import { leadItem, readLeadFor } from '../../shared/leadItem';
import { selectedTopics } from '../../shared/topics';
import { unpackKeptLead, WatchedLeads } from '../state/watchedLeads';
import type { WatchedOutcome } from './watchedOutcome';
import { watchedOutcome } from './watchedOutcome';
import type { InFlightRun } from '../state/runsInFlight';
import type { RunRecords } from './records';

/**
 * A run the trigger holds in flight, turned into its item and its decision, just before it
 * starts: the event, the lead read now (or that it is gone), and what Fields to Watch says. A
 * delivery's first run is judged here; a run decided before (a recovered change, or any run
 * again after a kill) starts, with the changes from the values kept before it (the same `from`).
 * A failure to read the lead throws: the run stays in flight and is tried again.
 */

/** How a run found by listing is marked, as the recovery gives it. */
export const MISSED_MARK = { recovered: true, recoveryReason: 'missed' } as const;

export interface PreparedRun {
	start: boolean;
	/** decided before this run (recovered, or a run again): it starts whatever is kept now */
	decided: boolean;
	json: IDataObject;
	/** recorded as run once it finished */
	version: LeadVersion;
	watched?: WatchedOutcome;
}

export async function prepareRun(
	context: ITriggerFunctions,
	run: InFlightRun,
	records: RunRecords,
): Promise<PreparedRun> {
	const decided = run.attempts > 0 || run.origin === 'recovered';
	const event = { id: run.leadId, topic: run.topic, timestamp: run.timestamp };
	// A longer 429 wait would hold a place other runs could use: the run waits in the queue.
	const read = await readLeadFor(context, event, fetchesFullLead(context), {
		rateLimitBudgetMs: 5_000,
	});
	// the item as a delivery gives it, marked as the run's origin says
	const json = leadItem(event, read, run.origin === 'recovered' ? MISSED_MARK : {});
	const lead = 'lead' in read ? read.lead : undefined;
	const eventMs = isoTimeMs(run.timestamp) ?? 0;
	const updatedMs = lead ? isoTimeMs(lead.updatedAt) : undefined;
	const version: LeadVersion =
		updatedMs !== undefined
			? { ms: updatedMs, exact: true }
			: { ms: eventMs, exact: run.origin === 'recovered' };
	// The service's late retry of a change a recovery ran meanwhile: the lead says exactly.
	const { ledger } = records;
	if (!decided && updatedMs !== undefined && ledger.mayBeRecovered(run.leadId, eventMs)) {
		if (ledger.hasRun(run.leadId, updatedMs)) return { start: false, decided, json, version };
	}
	const settings = watchSettingsOf(context);
	const watched = new WatchedLeads(
		context.getWorkflowStaticData('node'),
		records.scope,
		settings.fields,
	);
	const outcome = await watchedOutcome(context, watched, settings, {
		leadId: run.leadId,
		topic: run.topic,
		lead,
		fallbackMs: eventMs,
		selected: selectedTopics(context.getNodeParameter('events', [])).includes(run.topic),
		rerun: decided ? { before: unpackKeptLead(run.watchedBefore) } : undefined,
	});
	if (outcome.start && outcome.changes) withChanges(json, outcome.changes);
	return { start: outcome.start, decided, json, version, watched: outcome };
}
