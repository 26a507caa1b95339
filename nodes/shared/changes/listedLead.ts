import type { IDataObject } from 'n8n-workflow';

import { isoTimeMs } from '../isoTime';
import { recordId } from '../record';

/** A listed lead's id as text ('' when it has none). */
export function idOf(lead: IDataObject): string {
	return recordId(lead) ?? '';
}

/** A listed lead's version: its updatedAt (or createdAt), service time. */
export function versionOf(lead: IDataObject): number | undefined {
	return isoTimeMs(lead.updatedAt) ?? isoTimeMs(lead.createdAt);
}
