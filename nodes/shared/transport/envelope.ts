import { asRecord, isRecord } from './record';

/** Unwraps `{ data, context, status }`; a bare body is fine too (the envelope is not promised). */
export function unwrapEnvelope<T = unknown>(body: unknown): T {
	if (isRecord(body) && 'data' in body) {
		const record = body as Record<string, unknown>;
		if ('status' in record || 'context' in record || Object.keys(record).length === 1) {
			return record.data as T;
		}
	}
	return body as T;
}

/** The page's items, and `hasMore: false` when the service says nothing comes after it. */
export function readListPage<T>(body: unknown): { items: T[]; hasMore?: boolean } {
	if (Array.isArray(body)) return { items: body as T[] };
	if (body !== null && typeof body === 'object') {
		const record = body as Record<string, unknown>;
		const data = unwrapEnvelope<unknown>(record);
		const nested = asRecord(data);
		const items = Array.isArray(data)
			? data
			: Array.isArray(nested?.items)
				? nested.items
				: Array.isArray(nested?.leads)
					? nested.leads
					: Array.isArray(nested?.data)
						? nested.data
						: [];
		const hint = record.hasMore ?? nested?.hasMore;
		const next =
			'next' in record ? record.next : nested && 'next' in nested ? nested.next : undefined;
		const hasMore = typeof hint === 'boolean' ? hint : next === null ? false : undefined;
		return { items: items as T[], hasMore };
	}
	return { items: [] };
}
