import type { IDataObject } from 'n8n-workflow';

/** Whether a value can be read as a record of named fields: an object, not null, not a list. */
export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value as a record of named fields, or undefined when it is not one. */
export function asRecord(value: unknown): IDataObject | undefined {
	return isRecord(value) ? value : undefined;
}
