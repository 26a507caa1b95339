import type { IDataObject, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	compareOptionsFor,
	decideWatched,
	fetchesFullLead,
	watchSettingsOf,
	withChanges,
} from '../../shared/changes/watchedFields';
import { isoTimeMs } from '../../shared/isoTime';
import { readEventItem } from '../../shared/leadItem';
import { selectedTopics } from '../../shared/topics';
import { type InFlightRun, type JudgedRun, type RunRecords, keptBefore } from '../state/records';
import type { ItemRequestOptions } from '../../shared/transport/request';

/**
 * Turns a run in flight into its item and decision just before it starts (watchDecision.ts).
 * A first run is judged against its lead's kept values; a run again starts, with the same
 * `from`. A failed read throws: the run stays in flight and is tried again.
 */

/** How a run found by listing is marked, as the recovery gives it. */
export const MISSED_MARK = { recovered: true, recoveryReason: 'missed' } as const;

export interface PreparedRun extends JudgedRun {
	start: boolean;
	json: IDataObject;
}

/** Where a run is prepared: the trigger's queue, or a delivery its webhook runs itself. */
export interface PreparedFor {
	/** the node's production records (state/records.ts); none for the editor's test event */
	records: RunRecords | undefined;
	/** how the lead is read: how long a 429 may wait, within the caller's own deadline */
	read: ItemRequestOptions;
}

export async function prepareRun(
	context: ITriggerFunctions | IWebhookFunctions,
	run: InFlightRun,
	preparedFor: PreparedFor,
): Promise<PreparedRun> {
	// a run started before (a kill, a shared execution that failed): it runs again as it was judged
	const runAgain = run.attempts > 0;
	const event = { id: run.leadId, topic: run.topic, timestamp: run.timestamp };
	const { json, lead, updatedMs } = await readEventItem(context, event, {
		fetchFullLead: fetchesFullLead(context),
		// the item as a delivery gives it, marked as the run's origin says
		marks: run.origin === 'recovered' ? MISSED_MARK : {},
		read: preparedFor.read,
	});
	const eventMs = isoTimeMs(run.timestamp) ?? 0;
	const version = updatedMs !== undefined ? { ms: updatedMs, exact: true } : undefined;
	const prepared: PreparedRun = { run, start: false, json, version };
	const { records } = preparedFor;
	// The service's late retry of a change a recovery ran meanwhile: the lead says exactly.
	const delivered = !runAgain && run.origin === 'delivered';
	if (
		delivered &&
		updatedMs !== undefined &&
		records?.recoveredAlready(run.leadId, eventMs, updatedMs)
	)
		return prepared;
	const test = records === undefined;
	const selected = selectedTopics(context.getNodeParameter('events', [])).includes(run.topic);
	prepared.start = selected || test || runAgain;
	const settings = watchSettingsOf(context);
	const kept = keptBefore(context, records, run, settings.fields);
	if (!kept) return { ...prepared, drop: !test };
	const { known } = kept;
	const decision = await decideWatched(
		{ topic: run.topic, lead, known, fallbackMs: eventMs, replay: test || runAgain },
		settings,
		() => compareOptionsFor(context, settings.fields),
	);
	prepared.start &&= decision.runs;
	if (prepared.start && decision.changes) withChanges(json, decision.changes);
	// the editor's test event keeps and drops nothing
	if (test) return prepared;
	if (decision.keep) prepared.keep = { leadId: run.leadId, kept: decision.keep, before: known };
	if (decision.drop) prepared.drop = true;
	return prepared;
}
