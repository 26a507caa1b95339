import type { IDataObject, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { LeadVersion } from '../../shared/changes/versions';
import { fetchesFullLead, watchSettingsOf, withChanges } from '../../shared/changes/watchedFields';
import { isoTimeMs } from '../../shared/isoTime';
import { leadItem, readLeadFor } from '../../shared/leadItem';
import { selectedTopics } from '../../shared/topics';
import { unpackKeptLead, WatchedLeads } from '../state/watchedLeads';
import type { WatchedOutcome } from './watchedOutcome';
import { watchedOutcome } from './watchedOutcome';
import type { InFlightRun } from '../state/runsInFlight';
import { eventVersion } from '../state/runsInFlight';
import type { RecoveryLedger } from '../state/recoveryLedger';
import type { ItemRequestOptions } from '../../shared/transport/request';

/**
 * A run the trigger holds in flight, turned into its item and its decision, just before it
 * starts: the event, the lead read now (or that it is gone), and what Fields to Watch says.
 * Every run comes here, a delivered event or one the recovery found missing. A first run is
 * judged against the values its lead's previous run kept; a run again (after a kill, or after
 * its shared execution failed) starts, with the changes from the values kept before it (the
 * same `from`). A failure to read the lead throws: the run stays in flight and is tried again.
 */

/** How a run found by listing is marked, as the recovery gives it. */
export const MISSED_MARK = { recovered: true, recoveryReason: 'missed' } as const;

export interface PreparedRun {
	start: boolean;
	/** a run again: decided by its first run, it starts whatever is kept now */
	decided: boolean;
	json: IDataObject;
	/** recorded as run once it finished */
	version: LeadVersion;
	watched?: WatchedOutcome;
}

/** Where a run is prepared: the trigger's queue, or a delivery its webhook runs itself. */
export interface PreparedFor {
	/** the trigger node's scope; undefined for the editor's test event, which keeps nothing */
	scope: string | undefined;
	/** what recovery ran (none for the test event) */
	ledger: RecoveryLedger | undefined;
	/** how the lead is read: how long a 429 may wait, within the caller's own deadline */
	read: ItemRequestOptions;
}

export async function prepareRun(
	context: ITriggerFunctions | IWebhookFunctions,
	run: InFlightRun,
	preparedFor: PreparedFor,
): Promise<PreparedRun> {
	const decided = run.attempts > 0;
	const event = { id: run.leadId, topic: run.topic, timestamp: run.timestamp };
	const read = await readLeadFor(context, event, fetchesFullLead(context), preparedFor.read);
	// the item as a delivery gives it, marked as the run's origin says
	const json = leadItem(event, read, run.origin === 'recovered' ? MISSED_MARK : {});
	const lead = 'lead' in read ? read.lead : undefined;
	const eventMs = isoTimeMs(run.timestamp) ?? 0;
	const updatedMs = lead ? isoTimeMs(lead.updatedAt) : undefined;
	const version = updatedMs !== undefined ? { ms: updatedMs, exact: true } : eventVersion(run);
	// The service's late retry of a change a recovery ran meanwhile: the lead says exactly.
	const { ledger } = preparedFor;
	const delivered = !decided && run.origin === 'delivered';
	if (delivered && updatedMs !== undefined && ledger?.mayBeRecovered(run.leadId, eventMs)) {
		if (ledger.hasRun(run.leadId, updatedMs)) return { start: false, decided, json, version };
	}
	const settings = watchSettingsOf(context);
	const nodeData = context.getWorkflowStaticData('node');
	const watched = new WatchedLeads(nodeData, preparedFor.scope, settings.fields);
	const outcome = await watchedOutcome(context, watched, settings, {
		leadId: run.leadId,
		topic: run.topic,
		lead,
		fallbackMs: eventMs,
		selected: selectedTopics(context.getNodeParameter('events', [])).includes(run.topic),
		test: preparedFor.scope === undefined,
		rerun: decided ? { before: unpackKeptLead(run.watchedBefore) } : undefined,
	});
	if (outcome.start && outcome.changes) withChanges(json, outcome.changes);
	return { start: outcome.start, decided, json, version, watched: outcome };
}
