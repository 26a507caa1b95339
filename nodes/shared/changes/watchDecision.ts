import type { IDataObject } from 'n8n-workflow';

import type { CompareOptions } from './fieldChanges';
import { compareWatchedFields, keptRowOf } from './fieldChanges';
import type { KeptLead, WatchDecision, WatchSettings } from './watchVerdict';
import { judgeWatchedUpdate } from './watchVerdict';
import { keptVersionOf } from './watchedFields';
import { MAX_KEPT_VALUE_CHARS } from './watchedValues';

/**
 * What Fields to Watch decides for one lead event, for both triggers (a delivery, a recovered
 * change, a run again after a kill, the editor's test event, a poll): whether it may run, with
 * which changes, and which values to keep or drop. Whether the event's topic was chosen is the
 * caller's to add. Pure: the caller keeps the values and starts the run.
 *
 * - a delete: it runs; the lead's values are dropped.
 * - a lead gone before it was read: nothing to compare; its creation runs (as without
 *   watching), an update does not (its delete, if chosen, is an event of its own).
 * - a creation: the first look at the lead; its values are kept; it runs without changes.
 * - an update: it runs when a watched field changed (to a chosen value), with the changes; an
 *   older read than the values kept starts nothing and keeps nothing.
 *
 * `replay`: the event was decided before (a run again after a kill, or the test event): it
 * runs whatever changed, with the changes from the values given as `known`.
 */

export interface WatchedEvent {
	topic: string;
	/** the lead as read now; undefined when it is gone (or was not read) */
	lead: IDataObject | undefined;
	/** the values kept of the lead before this event */
	known: KeptLead | undefined;
	/** the version to keep when the lead has no time of its own (the event's time) */
	fallbackMs: number;
	replay?: boolean;
}

export async function decideWatched(
	event: WatchedEvent,
	settings: WatchSettings,
	compareOptions: () => Promise<CompareOptions>,
): Promise<WatchDecision> {
	const { lead } = event;
	if (event.topic === 'lead/delete') return { runs: true, drop: true };
	if (!lead) return { runs: event.topic === 'lead/create' || event.replay === true, drop: true };
	const ms = keptVersionOf(lead, event.fallbackMs);
	if (event.topic === 'lead/create')
		return {
			runs: true,
			keep: { ms, row: keptRowOf(lead, settings.fields, MAX_KEPT_VALUE_CHARS) },
		};
	const options = await compareOptions();
	if (event.replay) {
		const { row, ...changes } = compareWatchedFields(
			event.known?.row,
			lead,
			settings.fields,
			options,
		);
		return { runs: true, keep: { ms, row }, changes };
	}
	return judgeWatchedUpdate(event.known, lead, ms, settings, options);
}
