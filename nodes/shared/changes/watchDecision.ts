import type { IDataObject } from 'n8n-workflow';

import {
	type CompareOptions,
	type FieldChange,
	type FieldChanges,
	type KeptLead,
	type LeadValue,
	compareWatchedFields,
	keptRowOf,
} from './fieldChanges';
import { type ValueCondition, type WatchSettings, keptVersionOf } from './watchedFields';
import { MAX_KEPT_VALUE_CHARS } from './watchedValues';

/**
 * What Fields to Watch decides for one lead event, in one place for both triggers. A delete or
 * creation runs; a lead gone unread runs only as a creation; an update runs when a watched field
 * changed (to one of the values "Only when changed to" names, if any); `replay` always runs.
 */

/** The decision: whether it runs, the values to keep or drop, the changes for the item. */
export interface WatchDecision {
	runs: boolean;
	keep?: KeptLead;
	drop?: boolean;
	changes?: FieldChanges;
}

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

function normalized(text: string): string {
	return text.trim().toLowerCase();
}

function asList(value: LeadValue | undefined): string[] {
	if (value === null || value === undefined) return [];
	return Array.isArray(value) ? value : [String(value)];
}

/** Changed to a wanted value or label (ignoring case); a multi-select must have gained it. */
export function changedToOneOf(change: FieldChange, wanted: readonly string[]): boolean {
	const targets = new Set(wanted.map(normalized));
	const toValues = asList(change.to);
	const toLabels = Array.isArray(change.toLabel) ? change.toLabel : [change.toLabel];
	const before = new Set(asList(change.from).map(normalized));
	return toValues.some((value, index) => {
		if (Array.isArray(change.to) && before.has(normalized(value))) return false;
		const label = Array.isArray(change.to) ? toLabels[index] : toLabels[0];
		return (
			targets.has(normalized(value)) || (label !== undefined && targets.has(normalized(label)))
		);
	});
}

/** A changed field with no condition, or one that meets its conditions (which add up), runs. */
export function changesStartRun(
	changes: FieldChanges,
	conditions: readonly ValueCondition[],
): boolean {
	return changes.changedFields.some((fieldId) => {
		const own = conditions.filter((condition) => condition.fieldId === fieldId);
		const wanted = own.flatMap((condition) => condition.values);
		return own.length === 0 || changedToOneOf(changes.changes[fieldId], wanted);
	});
}

/** Judges an updated lead at version `ms` against its kept values (none: every field changed). */
export function judgeWatchedUpdate(
	known: KeptLead | undefined,
	lead: IDataObject,
	ms: number,
	settings: WatchSettings,
	options: CompareOptions,
): WatchDecision {
	// A read older than what is kept: that newer version was judged (and kept) already.
	if (known && ms < known.ms) return { runs: false };
	const { row, ...changes } = compareWatchedFields(known?.row, lead, settings.fields, options);
	const keep = { ms, row };
	if (changesStartRun(changes, settings.conditions)) return { runs: true, keep, changes };
	return { runs: false, keep };
}
