import type { IDataObject } from 'n8n-workflow';

import { type CompareOptions, compareWatchedFields, keptRowOf } from './fieldChanges';
import type { KeptLead, WatchDecision, WatchSettings } from './watchVerdict';
import { judgeWatchedUpdate } from './watchVerdict';
import { keptVersionOf } from './watchedFields';
import { MAX_KEPT_VALUE_CHARS } from './watchedValues';

/**
 * What Fields to Watch decides for one lead event. A delete or creation runs; a lead gone unread
 * runs only as a creation; an update runs when a watched field changed; `replay` always runs.
 */

export interface WatchedEvent {
	topic: string;
	/** the lead as read now; undefined when it is gone (or was not read) */
	lead: IDataObject | undefined;
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
