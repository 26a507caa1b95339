import type { IDataObject } from 'n8n-workflow';

import { isoTimeMs } from '../isoTime';
import { recentLeadSchema } from '../schema/leadSchema';
import type { LeadField } from '../schema/leadField';
import type { LeadTopic } from '../topics';
import type { PartnerLeadsFunctions } from '../transport/request';
import {
	type CompareOptions,
	type FieldChange,
	type FieldChanges,
	type KeptLead,
	type LeadValue,
	compareWatchedFields,
	keptRowOf,
} from './fieldChanges';
import { MAX_KEPT_VALUE_CHARS } from './watchedValues';

/**
 * Fields to Watch, in one place for both triggers: the settings as read, and the decision on each
 * lead event. Watching fields: the lead is always read, creations always seen, the changes put in
 * the item.
 */

/** "Only when changed to": the field starts a run only when it changes to one of the values. */
export interface ValueCondition {
	fieldId: string;
	/** picklist values as the schema has them, or values typed by the user (matched ignoring case) */
	values: string[];
}

/** The node's Fields to Watch and "Only when changed to", as read (`watchSettingsOf`). */
export interface WatchSettings {
	/** the field ids, in the order their values are kept */
	fields: string[];
	conditions: ValueCondition[];
}

type NodeParameterReader = Pick<PartnerLeadsFunctions, 'getNodeParameter'>;

function textList(value: unknown): string[] {
	return Array.isArray(value)
		? value.filter((item): item is string => typeof item === 'string')
		: [];
}

/** The watched field ids, each once, sorted: the order their values are kept in. */
export function watchedFieldIds(context: NodeParameterReader): string[] {
	const chosen = textList(context.getNodeParameter('watchedFields', []));
	return [...new Set(chosen.map((id) => id.trim()).filter(Boolean))].sort();
}

function conditionOf(raw: IDataObject, fields: readonly string[]): ValueCondition | undefined {
	const fieldId = typeof raw.field === 'string' ? raw.field.trim() : '';
	// a condition on a field no longer watched cannot hold back a run
	if (!fields.includes(fieldId)) return undefined;
	const typed = typeof raw.otherValues === 'string' ? raw.otherValues.split(',') : [];
	const values = [...textList(raw.values), ...typed].map((value) => value.trim()).filter(Boolean);
	return values.length > 0 ? { fieldId, values } : undefined;
}

export function watchSettingsOf(context: NodeParameterReader): WatchSettings {
	const fields = watchedFieldIds(context);
	if (fields.length === 0) return { fields, conditions: [] };
	const changedTo = context.getNodeParameter('changedTo', {}) as { conditions?: IDataObject[] };
	const conditions = (Array.isArray(changedTo.conditions) ? changedTo.conditions : [])
		.map((raw) => conditionOf(raw, fields))
		.filter((condition): condition is ValueCondition => condition !== undefined);
	return { fields, conditions };
}

/** Watching compares the lead's values: it is read in full whatever Fetch Full Lead says. */
export function fetchesFullLead(context: NodeParameterReader): boolean {
	return (
		context.getNodeParameter('fetchFullLead', true) !== false || watchedFieldIds(context).length > 0
	);
}

/** The chosen topics, plus creations when updates are watched (to keep a new lead's values). */
export function observedTopics(selected: LeadTopic[], watching: boolean): LeadTopic[] {
	if (!watching || !selected.includes('lead/update') || selected.includes('lead/create'))
		return selected;
	return ['lead/create', ...selected];
}

/** The version a lead's values are kept as: its updatedAt, else its createdAt, else `fallbackMs`. */
export function keptVersionOf(lead: IDataObject, fallbackMs: number): number {
	return isoTimeMs(lead.updatedAt) ?? isoTimeMs(lead.createdAt) ?? fallbackMs;
}

/** Picklist labels are read from a copy of the schema up to this old. */
const LABELS_MAX_AGE_MS = 10 * 60_000;

/** Per watched field its schema entry and labels; none if the schema cannot be read now. */
export async function compareOptionsFor(
	context: PartnerLeadsFunctions,
	fields: readonly string[],
): Promise<CompareOptions> {
	const labels = new Map<string, Map<string, string>>();
	const typed = new Map<string, LeadField>();
	try {
		const schema = await recentLeadSchema.call(context, LABELS_MAX_AGE_MS, {
			repeatable: false,
			rateLimitBudgetMs: 1_000,
		});
		for (const field of schema) {
			if (!fields.includes(field.fieldId)) continue;
			typed.set(field.fieldId, field);
			if (field.options)
				labels.set(field.fieldId, new Map(field.options.map((o) => [o.value, o.label])));
		}
	} catch (error) {
		context.logger.debug('Partner Referral Service: no picklist labels for the changes', {
			reason: (error as Error).message,
		});
	}
	return { maxKeptChars: MAX_KEPT_VALUE_CHARS, labels, fields: typed };
}

/** The changes in the item: `changes` per field (`from`, `to`, labels) and `changedFields`. */
export function withChanges(json: IDataObject, changes: FieldChanges): IDataObject {
	json.changes = changes.changes as unknown as IDataObject;
	json.changedFields = changes.changedFields;
	return json;
}

/**
 * The decision on one lead event. A delete or creation runs; a lead gone unread runs only as a creation; an update runs when a watched field
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
