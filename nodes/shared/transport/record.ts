import type { IDataObject } from 'n8n-workflow';

/** Whether a value can be read as a record of named fields: an object, not null, not a list. */
export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value as a record of named fields, or undefined when it is not one. */
export function asRecord(value: unknown): IDataObject | undefined {
	return isRecord(value) ? value : undefined;
}

/** A record's `id` as text (services send ids as text or numbers); undefined when it has none. */
export function recordId(value: unknown): string | undefined {
	const id = (value as { id?: unknown } | null)?.id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
