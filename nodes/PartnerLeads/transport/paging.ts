import type { IDataObject } from 'n8n-workflow';

import { readListPage } from './envelope';
import type { ApiRequest, PartnerLeadsFunctions } from './request';
import { apiRequestRaw } from './request';

/** The service's largest page (DESIGN.md: limit 1..100). */
export const MAX_PAGE_SIZE = 100;

export interface PagingRequest extends Omit<ApiRequest, 'method' | 'qs'> {
	qs?: IDataObject;
	/** items wanted in all; undefined = all there are. Only bounds the page size of the last request. */
	pageSize?: number;
}

/**
 * Walks a list with `skip`/`limit`, one page at a time, so "return all" never holds more
 * than one page of the service's answer at once. A short page ends the list, and so does
 * an explicit `hasMore: false` / `next: null` hint.
 */
export async function* pagesOf<T>(this: PartnerLeadsFunctions, request: PagingRequest): AsyncGenerator<T[]> {
	// Items still wanted: full pages until the last one, which asks only for the rest.
	let remaining = request.pageSize === undefined ? Infinity : Math.max(1, Math.floor(request.pageSize));
	let skip = 0;
	while (remaining > 0) {
		const limit = Math.min(remaining, MAX_PAGE_SIZE);
		const body = await apiRequestRaw.call(this, {
			...request,
			method: 'GET',
			qs: { ...request.qs, skip, limit },
		});
		const page = readListPage<T>(body);
		if (page.items.length > 0) yield page.items;
		if (page.items.length < limit || page.hasMore === false) return;
		skip += page.items.length;
		remaining -= page.items.length;
	}
}
