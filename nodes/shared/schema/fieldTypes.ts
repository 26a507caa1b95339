import type { FieldType } from 'n8n-workflow';

import type { LeadFieldType } from './fieldTypeNames';
import { type LeadField, type PicklistOption, fieldName } from './leadField';

/** Per field type: its n8n type, how a value is read ("42" → 42), if it can identify a lead. */

export type Coerced = { ok: true; value: unknown } | { ok: false; problem: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_PREFIX = /^(\d{4})-(\d{2})-(\d{2})[T ]/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 'on']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'off']);

export function isEmptyValue(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

function shown(value: unknown): string {
	const textValue =
		typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
	return textValue.length > 60 ? `${textValue.slice(0, 57)}...` : textValue;
}

function kindOf(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (value === null) return 'null';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

/** A date value as text: a Date from an expression (refused when invalid, not thrown on), or the text given. */
function dateText(value: unknown): string | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	return typeof value === 'string' ? value.trim() : undefined;
}

function asText(value: unknown): string | undefined {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'boolean') return String(value);
	return undefined;
}

function fail(field: LeadField, expected: string, value: unknown, why?: string): Coerced {
	const detail = why ?? `got ${kindOf(value)}: ${shown(value)}`;
	return { ok: false, problem: `${fieldName(field)} must be ${expected} (${detail})` };
}

function toNumber(field: LeadField, value: unknown): Coerced {
	if (typeof value === 'number')
		return Number.isFinite(value) ? { ok: true, value } : fail(field, 'a number', value);
	if (typeof value === 'string') {
		const parsed = Number(value.trim());
		if (Number.isFinite(parsed)) return { ok: true, value: parsed };
		return fail(field, 'a number', value, `${shown(value)} cannot be read as a number`);
	}
	return fail(field, 'a number', value);
}

function toBoolean(field: LeadField, value: unknown): Coerced {
	if (typeof value === 'boolean') return { ok: true, value };
	const word = asText(value)?.trim().toLowerCase();
	if (word !== undefined && TRUE_WORDS.has(word)) return { ok: true, value: true };
	if (word !== undefined && FALSE_WORDS.has(word)) return { ok: true, value: false };
	return fail(field, 'true or false', value, `${shown(value)} cannot be read as true or false`);
}

function toDate(field: LeadField, value: unknown): Coerced {
	const expected = 'a date, YYYY-MM-DD';
	const raw = dateText(value);
	if (raw === undefined) return fail(field, expected, value);
	// n8n's date picker sends a date-time; the service wants the calendar date.
	const match =
		DATE_ONLY.exec(raw) ??
		(DATE_PREFIX.test(raw) && !Number.isNaN(Date.parse(raw)) ? DATE_PREFIX.exec(raw) : null);
	if (match && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
		return { ok: true, value: `${match[1]}-${match[2]}-${match[3]}` };
	}
	return fail(field, expected, value, `${shown(value)} is not a date`);
}

/** Epoch ms (NaN if unreadable); no zone (n8n's date picker) means UTC, a date its midnight UTC. */
export function utcInstant(raw: string): number {
	const withZone = DATE_ONLY.test(raw)
		? `${raw}T00:00:00Z`
		: DATE_PREFIX.test(raw) && !HAS_ZONE.test(raw)
			? `${raw}Z`
			: raw;
	return Date.parse(withZone);
}

function toDateTime(field: LeadField, value: unknown): Coerced {
	const expected = 'an ISO 8601 date-time, e.g. 2024-05-01T09:30:00Z';
	const raw = dateText(value);
	if (raw === undefined) return fail(field, expected, value);
	const prefix = DATE_ONLY.exec(raw) ?? DATE_PREFIX.exec(raw);
	const time = utcInstant(raw);
	if (
		!prefix ||
		Number.isNaN(time) ||
		!isCalendarDate(Number(prefix[1]), Number(prefix[2]), Number(prefix[3]))
	) {
		const what = DATE_ONLY.test(raw) ? 'a date' : 'a date-time';
		return fail(field, expected, value, `${shown(value)} is not ${what}`);
	}
	return { ok: true, value: new Date(time).toISOString() };
}

function allowedList(options: PicklistOption[]): string {
	return options
		.map((option) =>
			option.label !== option.value ? `${option.value} (${option.label})` : option.value,
		)
		.join(', ');
}

/** The option a value stands for: its value exactly, else its value or label in any letter case. */
function pickOption(options: PicklistOption[], raw: string): PicklistOption | undefined {
	const wanted = raw.trim();
	const lower = wanted.toLowerCase();
	return (
		options.find((option) => option.value === wanted) ??
		options.find(
			(option) => option.value.toLowerCase() === lower || option.label.toLowerCase() === lower,
		)
	);
}

function toPicklist(field: LeadField, value: unknown): Coerced {
	const options = field.options ?? [];
	const raw = asText(value);
	if (raw === undefined) return fail(field, `one of: ${allowedList(options)}`, value);
	if (options.length === 0) return { ok: true, value: raw };
	const option = pickOption(options, raw);
	if (option) return { ok: true, value: option.value };
	return {
		ok: false,
		problem: `${fieldName(field)} must be one of: ${allowedList(options)} (got ${shown(value)})`,
	};
}

function toMultiPicklist(field: LeadField, value: unknown): Coerced {
	const options = field.options ?? [];
	const expected =
		options.length > 0 ? `a list of values from: ${allowedList(options)}` : 'a list of values';
	// A comma-separated text is read as a list, as spreadsheets and forms send it.
	const items = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: undefined;
	if (!items) return fail(field, expected, value);
	const picked: string[] = [];
	const unknown: string[] = [];
	for (const item of items) {
		const raw = asText(item);
		if (raw === undefined) return fail(field, expected, value);
		if (raw.trim() === '') continue;
		if (options.length === 0) {
			picked.push(raw.trim());
			continue;
		}
		const option = pickOption(options, raw);
		if (option) picked.push(option.value);
		else unknown.push(raw.trim());
	}
	if (unknown.length > 0) {
		return {
			ok: false,
			problem: `${fieldName(field)} takes only values from: ${allowedList(options)} (not allowed: ${unknown.map((item) => shown(item)).join(', ')})`,
		};
	}
	return { ok: true, value: picked };
}

function toEmail(field: LeadField, value: unknown): Coerced {
	const raw = typeof value === 'string' ? value.trim() : undefined;
	if (raw !== undefined && EMAIL.test(raw)) return { ok: true, value: raw };
	return fail(field, 'an e-mail address such as name@example.com', value, `got ${shown(value)}`);
}

function toUrl(field: LeadField, value: unknown): Coerced {
	const raw = typeof value === 'string' ? value.trim() : undefined;
	const protocol = raw !== undefined && URL.canParse(raw) ? new URL(raw).protocol : undefined;
	if (protocol === 'http:' || protocol === 'https:') return { ok: true, value: raw };
	return fail(
		field,
		'a full web address such as https://example.com',
		value,
		`got ${shown(value)}`,
	);
}

function toText(field: LeadField, value: unknown): Coerced {
	const raw = asText(value);
	return raw === undefined ? fail(field, 'text', value) : { ok: true, value: raw };
}

interface FieldTypeRule {
	n8nType: FieldType;
	coerce: (field: LeadField, value: unknown) => Coerced;
	/** one scalar value per lead, so Create or Update can match leads on it */
	identifiesLead: boolean;
}

export const FIELD_TYPES = {
	string: { n8nType: 'string', coerce: toText, identifiesLead: true },
	textarea: { n8nType: 'string', coerce: toText, identifiesLead: false },
	email: { n8nType: 'string', coerce: toEmail, identifiesLead: true },
	phone: { n8nType: 'string', coerce: toText, identifiesLead: true },
	url: { n8nType: 'string', coerce: toUrl, identifiesLead: true },
	number: { n8nType: 'number', coerce: toNumber, identifiesLead: true },
	currency: { n8nType: 'number', coerce: toNumber, identifiesLead: true },
	boolean: { n8nType: 'boolean', coerce: toBoolean, identifiesLead: false },
	date: { n8nType: 'dateTime', coerce: toDate, identifiesLead: true },
	datetime: { n8nType: 'dateTime', coerce: toDateTime, identifiesLead: true },
	picklist: { n8nType: 'options', coerce: toPicklist, identifiesLead: true },
	multipicklist: { n8nType: 'array', coerce: toMultiPicklist, identifiesLead: false },
} as const satisfies Record<LeadFieldType, FieldTypeRule>;

export function coerceFieldValue(field: LeadField, value: unknown): Coerced {
	return FIELD_TYPES[field.type].coerce(field, value);
}

export function n8nTypeOf(field: LeadField): FieldType {
	return FIELD_TYPES[field.type].n8nType;
}

export function canIdentifyLead(field: LeadField): boolean {
	return FIELD_TYPES[field.type].identifiesLead;
}

/** A date-time as the service writes one (an instant is compared as an instant). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Without a type: an ISO date-time is its instant, a number written as text ("10") the number. */
function comparableWithoutType(value: unknown): unknown {
	if (Array.isArray(value)) return [...new Set(value.map(String))].sort();
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if (ISO_DATE_TIME.test(text)) {
		const ms = utcInstant(text);
		if (!Number.isNaN(ms)) return new Date(ms).toISOString();
	}
	// only a number's own spelling: "0123" (a phone, a code) stays text
	const number = Number(text);
	if (text !== '' && Number.isFinite(number) && String(number) === text) return number;
	return value;
}

/** Read by its type, so the same value in another form ("10" and 10) is no change for Watch. */
export function comparableValue(field: LeadField | undefined, value: unknown): unknown {
	if (isEmptyValue(value)) return null;
	if (!field) return comparableWithoutType(value);
	const coerced = coerceFieldValue(field, value);
	if (!coerced.ok) return comparableWithoutType(value);
	if (Array.isArray(coerced.value)) return [...new Set(coerced.value.map(String))].sort();
	return coerced.value;
}
