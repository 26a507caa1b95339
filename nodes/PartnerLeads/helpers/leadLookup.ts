import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { pagesOf } from '../transport/paging';
import { isEmptyValue } from './coerceValue';
import type { LeadField } from './leadSchema';
import { isLead, leadFieldValue } from './leadOutput';

/**
 * Create or Update finds existing leads by one field. The service's list cannot search, so
 * the leads are listed once per run into a map of match value → lead id, instead of once
 * per item.
 */

/** Field types a lead can be matched on: one scalar value each. */
export function canMatchOn(field: LeadField): boolean {
	return field.type !== 'boolean' && field.type !== 'multipicklist' && field.type !== 'textarea';
}

/** E-mail addresses match in any letter case; other values after trimming. */
export function matchKey(value: unknown, field: LeadField): string | undefined {
	if (isEmptyValue(value) || (typeof value === 'object' && value !== null)) return undefined;
	const text = String(value).trim();
	return field.type === 'email' ? text.toLowerCase() : text;
}

/** Milliseconds since the epoch of a lead's createdAt, if it has a readable one. */
function createdAtOf(lead: IDataObject): number | undefined {
	const time = typeof lead.createdAt === 'string' ? Date.parse(lead.createdAt) : NaN;
	return Number.isNaN(time) ? undefined : time;
}

export class LeadLookup {
	private readonly ids = new Map<string, { id: string; createdAt?: number }>();

	constructor(readonly field: LeadField) {}

	find(key: string): string | undefined {
		return this.ids.get(key)?.id;
	}

	/**
	 * The oldest lead with a value wins, so repeated runs update the same lead whatever order
	 * the service lists leads in (by createdAt; without one, the first listed).
	 */
	remember(key: string, leadId: string, createdAt?: number): void {
		const known = this.ids.get(key);
		const older =
			known?.createdAt !== undefined && createdAt !== undefined && createdAt < known.createdAt;
		if (!known || older) this.ids.set(key, { id: leadId, createdAt });
	}

	async load(context: IExecuteFunctions): Promise<void> {
		// pagesOf sees every lead even when leads are deleted in the portal meanwhile: one the
		// lookup missed would be created twice.
		const pages = pagesOf.call(context, { path: '/leads', what: 'list of leads', itemIndex: 0 });
		for await (const page of pages) {
			for (const lead of page) {
				if (!isLead(lead) || lead.id === undefined || lead.id === null) continue;
				const key = matchKey(
					leadFieldValue(lead, this.field.fieldId, this.field.custom),
					this.field,
				);
				if (key !== undefined) this.remember(key, String(lead.id), createdAtOf(lead));
			}
		}
	}
}
