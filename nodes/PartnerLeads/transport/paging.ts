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
	const pageSize = Math.min(Math.max(1, request.pageSize ?? MAX_PAGE_SIZE), MAX_PAGE_SIZE);
	let skip = 0;
	for (;;) {
		const body = await apiRequestRaw.call(this, {
			...request,
			method: 'GET',
			qs: { ...request.qs, skip, limit: pageSize },
		});
		const page = readListPage<T>(body);
		if (page.items.length > 0) yield page.items;
		if (page.items.length < pageSize || page.hasMore === false) return;
		skip += page.items.length;
	}
}
