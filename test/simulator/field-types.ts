import type { SchemaField } from './types';

/**
 * Value checks per schema `type` (the type names the field-type table knows: string, textarea, email, phone, url, number,
 * currency, boolean, date, datetime, picklist, multipicklist; unknown types are strings).
 */

/** The part of a schema entry the checks need. */
export interface FieldRule
	extends Pick<
		SchemaField,
		'fieldId' | 'label' | 'type' | 'required' | 'creatable' | 'updateable'
	> {
	custom: boolean;
	allowed?: string[];
}

/** How messages name a field: customFields.x for custom fields, with the label when it differs. */
export function fieldName(rule: FieldRule): string {
	const path = rule.custom ? `customFields.${rule.fieldId}` : rule.fieldId;
	return rule.label && rule.label !== rule.fieldId ? `${path} (${rule.label})` : path;
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value;
}

function shown(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 60 ? text.slice(0, 57) + '...' : text;
}

export function isBlank(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME =
	/^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

function isCalendarDate(match: RegExpExecArray | null): boolean {
	if (!match) return false;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	const date = new Date(Date.UTC(year, month - 1, day));
	return (
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
	);
}

function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** null when the value fits the field's type, else a message saying what is expected. */
export function typeProblem(rule: FieldRule, value: unknown): string | null {
	const n = fieldName(rule);
	switch (rule.type) {
		case 'number':
		case 'currency':
			return typeof value === 'number' && Number.isFinite(value)
				? null
				: `${n} must be a number (got ${kindOf(value)} ${shown(value)})`;
		case 'boolean':
			return typeof value === 'boolean'
				? null
				: `${n} must be a boolean, true or false (got ${kindOf(value)} ${shown(value)})`;
		case 'email':
			return typeof value === 'string' && EMAIL.test(value)
				? null
				: `${n} must be a valid e-mail address (got ${shown(value)})`;
		case 'url':
			return typeof value === 'string' && isHttpUrl(value)
				? null
				: `${n} must be an absolute http(s) URL (got ${shown(value)})`;
		case 'date':
			return typeof value === 'string' &&
				(isCalendarDate(DATE.exec(value)) || isCalendarDate(DATETIME.exec(value)))
				? null
				: `${n} must be an ISO 8601 date, YYYY-MM-DD (got ${shown(value)})`;
		case 'datetime':
			return typeof value === 'string' && isCalendarDate(DATETIME.exec(value))
				? null
				: `${n} must be an ISO 8601 date-time with time zone, e.g. 2024-05-01T09:30:00.000Z (got ${shown(value)})`;
		case 'picklist': {
			if (!rule.allowed) return typeof value === 'string' ? null : `${n} must be a string`;
			return typeof value === 'string' && rule.allowed.includes(value)
				? null
				: `${n} must be one of: ${rule.allowed.join(', ')} (got ${shown(value)})`;
		}
		case 'multipicklist': {
			const allowed = rule.allowed;
			const ok =
				Array.isArray(value) &&
				value.every((item) => typeof item === 'string' && (!allowed || allowed.includes(item)));
			if (ok) return null;
			const list = allowed ? ` of: ${allowed.join(', ')}` : '';
			return `${n} must be an array of values${list} (got ${shown(value)})`;
		}
		default:
			// string, textarea, phone and types the simulator does not know
			return typeof value === 'string'
				? null
				: `${n} must be a string (got ${kindOf(value)} ${shown(value)})`;
	}
}
