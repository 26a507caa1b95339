import type { IDataObject } from 'n8n-workflow';

import { readListPage } from './envelope';
import type { ApiRequest, PartnerLeadsFunctions } from './request';
import { apiRequestRaw } from './request';

/** The service's largest page (DESIGN.md: limit 1..100). */
export const MAX_PAGE_SIZE = 100;

/**
 * Leads of each page read again with the next one when a whole list must be complete (Get
 * Many, the Create or Update lookup): tolerates that many portal deletions behind the
 * listing position between two requests, for about 11% more requests.
 */
export const LEAD_LIST_OVERLAP = 10;

export interface PagingRequest extends Omit<ApiRequest, 'method' | 'qs'> {
	qs?: IDataObject;
	/** items wanted in all; undefined = all there are. Only bounds the page size of the last request. */
	pageSize?: number;
	/**
	 * Items of the previous page to read again with each next page (records with an `id`).
	 * Paging by skip/limit shifts when a record behind the position is deleted meanwhile, and
	 * the first record of the next page would be missed; reading `overlap` records again (and
	 * dropping the ones already seen) tolerates that many deletions between two requests.
	 */
	overlap?: number;
}

function idOf(item: unknown): string | undefined {
	const id = (item as { id?: unknown } | null)?.id;
	return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/**
 * Walks a list with `skip`/`limit`, one page at a time, so "return all" never holds more
 * than one page of the service's answer at once. A short page ends the list, and so does
 * an explicit `hasMore: false` / `next: null` hint.
 */
export async function* pagesOf<T>(this: PartnerLeadsFunctions, request: PagingRequest): AsyncGenerator<T[]> {
	// Items still wanted: full pages until the last one, which asks only for the rest.
	let remaining = request.pageSize === undefined ? Infinity : Math.max(1, Math.floor(request.pageSize));
	const overlap = Math.min(Math.max(0, Math.floor(request.overlap ?? 0)), MAX_PAGE_SIZE / 2);
	let skip = 0;
	let previousIds = new Set<string>();
	while (remaining > 0) {
		const reread = skip > 0 ? overlap : 0;
		const limit = Math.min(remaining + reread, MAX_PAGE_SIZE);
		const body = await apiRequestRaw.call(this, {
			...request,
			method: 'GET',
			qs: { ...request.qs, skip: skip - reread, limit },
		});
		const page = readListPage<T>(body);
		const fresh = reread > 0 ? page.items.filter((item) => !previousIds.has(idOf(item) ?? '')) : page.items;
		if (fresh.length > 0) yield fresh;
		if (page.items.length < limit || page.hasMore === false) return;
		if (overlap > 0) previousIds = new Set(page.items.map(idOf).filter((id): id is string => id !== undefined));
		skip += page.items.length - reread;
		remaining -= page.items.length - reread;
	}
}
