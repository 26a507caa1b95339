import type { IDataObject } from 'n8n-workflow';

import type { CompareOptions, FieldChange, FieldChanges, KeptRow, LeadValue } from './fieldChanges';
import { compareWatchedFields } from './fieldChanges';

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
	runs: boolean;
	keep?: KeptLead;
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
