import type { IDataObject } from 'n8n-workflow';

import type { CompareOptions, FieldChange, FieldChanges, KeptRow, LeadValue } from './fieldChanges';
import { compareWatchedFields } from './fieldChanges';

/**
 * What watching fields says about one updated lead: start a run (with the changes), only keep
 * its values (nothing watched changed, or not to a chosen value), or nothing at all (the lead as
 * read is older than the values kept: it neither runs nor keeps). Pure; the caller keeps the
 * values and starts the run.
 */

/** "Only when changed to": the field starts a run only when it changes to one of the values. */
export interface ValueCondition {
	fieldId: string;
	/** picklist values as the schema has them, or values typed by the user (matched ignoring case) */
	values: string[];
}

/** A lead's watched values as of one version of it (its updatedAt, service time). */
export interface KeptLead {
	ms: number;
	row: KeptRow;
}

export interface WatchSettings {
	/** the field ids, in the order their values are kept */
	fields: string[];
	conditions: ValueCondition[];
}

/** What Fields to Watch decides for one lead event (watchDecision.ts), the topic aside. */
export interface WatchDecision {
	/** Fields to Watch lets it run */
	runs: boolean;
	/** the values to keep from now on */
	keep?: KeptLead;
	/** the lead's values go */
	drop?: boolean;
	changes?: FieldChanges;
}

function normalized(text: string): string {
	return text.trim().toLowerCase();
}

function asList(value: LeadValue | undefined): string[] {
	if (value === null || value === undefined) return [];
	return Array.isArray(value) ? value : [String(value)];
}

function labelList(label: string | string[] | undefined): Array<string | undefined> {
	return Array.isArray(label) ? label : [label];
}

/**
 * Whether the field changed to one of the wanted values (by value or label, ignoring case). A
 * multi-select must have gained one of them: a value it already had does not count.
 */
export function changedToOneOf(change: FieldChange, wanted: readonly string[]): boolean {
	const targets = new Set(wanted.map(normalized));
	const toValues = asList(change.to);
	const toLabels = labelList(change.toLabel);
	const before = new Set(asList(change.from).map(normalized));
	return toValues.some((value, index) => {
		if (Array.isArray(change.to) && before.has(normalized(value))) return false;
		const label = Array.isArray(change.to) ? toLabels[index] : toLabels[0];
		return (
			targets.has(normalized(value)) || (label !== undefined && targets.has(normalized(label)))
		);
	});
}

/**
 * Whether the changes start a run: some changed field has no condition, or changed to one of
 * its condition's values (several conditions on one field add up their values).
 */
export function changesStartRun(
	changes: FieldChanges,
	conditions: readonly ValueCondition[],
): boolean {
	return changes.changedFields.some((fieldId) => {
		const wanted = conditions
			.filter((condition) => condition.fieldId === fieldId)
			.flatMap((condition) => condition.values);
		const hasCondition = conditions.some((condition) => condition.fieldId === fieldId);
		return !hasCondition || changedToOneOf(changes.changes[fieldId], wanted);
	});
}

/**
 * Judges an updated lead as read now (`ms`: its version) against the values kept of it
 * (undefined: not known; every field then counts as changed, without `from`).
 */
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
