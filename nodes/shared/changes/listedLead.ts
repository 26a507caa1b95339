import type { IDataObject } from 'n8n-workflow';

import { isoTimeMs } from '../isoTime';
import { isRecord, recordId } from '../transport/record';

/** A lead as the list gave it, read once: its id, and its times in the service's clock. */
export interface ListedLead {
	id: string;
	/** its updatedAt (or createdAt): which version of the lead this is; undefined without either */
	version: number | undefined;
	createdMs: number | undefined;
	lead: IDataObject;
}

/** Reads a listed entry; undefined when it has no id (a lead that cannot be told apart). */
export function readListedLead(entry: unknown): ListedLead | undefined {
	const id = recordId(entry);
	if (!id || !isRecord(entry)) return undefined;
	const createdMs = isoTimeMs(entry.createdAt);
	return { id, version: isoTimeMs(entry.updatedAt) ?? createdMs, createdMs, lead: entry };
}
