import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../transport/record';
import { comparableValue } from '../schema/fieldTypes';
import type { LeadField } from '../schema/leadField';

/** Watched values are kept as sent and compared by type, so values of any release read the same. */

/** A lead's watched values as of one version of it (its updatedAt, service time). */
export interface KeptLead {
	ms: number;
	row: KeptRow;
}

/** A field's value as compared: empty is null, a multi-select its values sorted (a set). */
export type LeadValue = null | string | number | boolean | string[];

/** Only the fingerprint of a value too long to keep: it tells "changed", not what it was. */
export interface Fingerprint {
	fp: string;
}

export type KeptValue = LeadValue | Fingerprint;

/** A lead's kept values, one per watched field in the order of the fields. */
export type KeptRow = KeptValue[];

export interface FieldChange {
	/** the value before; absent when it is not known (only its fingerprint kept, or the lead not) */
	from?: LeadValue;
	to: LeadValue;
	/** picklist labels, where the schema has them (a list for a multi-select) */
	fromLabel?: string | string[];
	toLabel?: string | string[];
}

export interface FieldChanges {
	changes: Record<string, FieldChange>;
	changedFields: string[];
}

export interface CompareOptions {
	/** values whose JSON is longer than this are kept as a fingerprint */
	maxKeptChars: number;
	labels?: ReadonlyMap<string, ReadonlyMap<string, string>>;
	/** per field id, the field as the schema has it: values are compared by its type */
	fields?: ReadonlyMap<string, LeadField>;
}

/** A field's raw value in a lead: custom fields sit under `customFields`, standard ones on top. */
export function fieldValueOf(lead: IDataObject, fieldId: string): unknown {
	const custom = lead.customFields;
	if (isRecord(custom) && Object.prototype.hasOwnProperty.call(custom, fieldId))
		return custom[fieldId];
	return lead[fieldId];
}

function itemText(item: unknown): string {
	if (typeof item === 'string') return item;
	if (isRecord(item) && item.value !== undefined) return itemText(item.value);
	return typeof item === 'number' || typeof item === 'boolean'
		? String(item)
		: JSON.stringify(item);
}

/** Absent, null and "" are empty; a multi-select is a sorted set; `{ value, label }` its value. */
export function leadValueOf(raw: unknown): LeadValue {
	if (raw === undefined || raw === null || raw === '') return null;
	if (typeof raw === 'string' || typeof raw === 'boolean') return raw;
	if (typeof raw === 'number') return Number.isFinite(raw) ? raw : String(raw);
	if (Array.isArray(raw)) {
		const values = raw.map(itemText).filter((value) => value !== '');
		return values.length > 0 ? values.sort() : null;
	}
	if (isRecord(raw) && raw.value !== undefined) return leadValueOf(raw.value);
	return JSON.stringify(raw);
}

export function isFingerprint(value: KeptValue | undefined): value is Fingerprint {
	return isRecord(value) && typeof (value as Fingerprint).fp === 'string';
}

/** The value as kept: itself, or its fingerprint when its JSON is longer than `maxChars`. */
export function keptValueOf(value: LeadValue, maxChars: number): KeptValue {
	const json = JSON.stringify(value);
	if (json.length <= maxChars) return value;
	return { fp: createHash('sha256').update(json).digest('base64url').slice(0, 12) };
}

/** The lead's watched values as kept, in the order of the fields. */
export function keptRowOf(lead: IDataObject, fields: readonly string[], maxChars: number): KeptRow {
	return fields.map((fieldId) => keptValueOf(leadValueOf(fieldValueOf(lead, fieldId)), maxChars));
}

function sameKept(a: KeptValue | undefined, b: KeptValue, field: LeadField | undefined): boolean {
	if (a === undefined) return false;
	if (isFingerprint(a) || isFingerprint(b)) return JSON.stringify(a) === JSON.stringify(b);
	return JSON.stringify(comparableValue(field, a)) === JSON.stringify(comparableValue(field, b));
}

function labelOf(
	labels: ReadonlyMap<string, string> | undefined,
	value: LeadValue,
): string | string[] | undefined {
	if (!labels || value === null) return undefined;
	if (Array.isArray(value)) return value.map((item) => labels.get(item) ?? item);
	return labels.get(String(value));
}

function changeOf(
	before: KeptValue | undefined,
	to: LeadValue,
	labels: ReadonlyMap<string, string> | undefined,
): FieldChange {
	// Unknown before (a fingerprint, or nothing kept): the change has no `from`.
	const known = before !== undefined && !isFingerprint(before);
	const change: FieldChange = known ? { from: before, to } : { to };
	const fromLabel = known ? labelOf(labels, before) : undefined;
	const toLabel = labelOf(labels, to);
	if (fromLabel !== undefined) change.fromLabel = fromLabel;
	if (toLabel !== undefined) change.toLabel = toLabel;
	return change;
}

/** Compares kept values with the lead now (none kept: every field changed, without `from`). */
export function compareWatchedFields(
	kept: KeptRow | undefined,
	lead: IDataObject,
	fields: readonly string[],
	options: CompareOptions,
): FieldChanges & { row: KeptRow } {
	const result: FieldChanges & { row: KeptRow } = { changes: {}, changedFields: [], row: [] };
	fields.forEach((fieldId, index) => {
		const to = leadValueOf(fieldValueOf(lead, fieldId));
		const now = keptValueOf(to, options.maxKeptChars);
		result.row.push(now);
		const before = kept?.[index];
		if (kept !== undefined && sameKept(before, now, options.fields?.get(fieldId))) return;
		result.changes[fieldId] = changeOf(before, to, options.labels?.get(fieldId));
		result.changedFields.push(fieldId);
	});
	return result;
}
