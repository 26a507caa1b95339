import type { IExecuteFunctions } from 'n8n-workflow';

import { LEAD_LIST_OVERLAP, pagesOf } from '../transport/paging';
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

export class LeadLookup {
	private readonly ids = new Map<string, string>();

	constructor(readonly field: LeadField) {}

	get size(): number {
		return this.ids.size;
	}

	find(key: string): string | undefined {
		return this.ids.get(key);
	}

	/** The first (oldest) lead with a value wins, so repeated runs update the same lead. */
	remember(key: string, leadId: string): void {
		if (!this.ids.has(key)) this.ids.set(key, leadId);
	}

	async load(context: IExecuteFunctions): Promise<void> {
		// Leads deleted in the portal while we list would shift the pages and hide a lead from
		// the lookup, which would then be created twice: read a few leads of each page again.
		const pages = pagesOf.call(context, { path: '/leads', what: 'list of leads', itemIndex: 0, overlap: LEAD_LIST_OVERLAP });
		for await (const page of pages) {
			for (const lead of page) {
				if (!isLead(lead) || lead.id === undefined || lead.id === null) continue;
				const key = matchKey(leadFieldValue(lead, this.field.fieldId, this.field.custom), this.field);
				if (key !== undefined) this.remember(key, String(lead.id));
			}
		}
	}
}
