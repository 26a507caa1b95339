import type { Request } from 'express';

import { ApiError, validationError, type ErrorDetail } from './errors';
import type { Personality } from './personality';

/**
 * Paging of GET /leads and (when the personality pages them) GET subscriptions:
 * `?skip=N&limit=M` (limit 1..100, default 20), then cut to the service's own page cap.
 * With `next` hints the answer's `next` is an opaque cursor the client may send back as
 * `?cursor=<next>` (it replaces skip; limit still applies). Other personalities ignore
 * `cursor`, as a service ignores a parameter it does not know.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface PageRequest {
	skip: number;
	/** what the service will answer at most: the asked limit cut to the page cap */
	limit: number;
}

/** Where a page sits in the whole list, for the end hints. */
export interface PagePosition {
	skip: number;
	total: number;
}

const CURSOR_PREFIX = 'cur_';

export function encodeCursor(offset: number): string {
	return CURSOR_PREFIX + Buffer.from(`offset:${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(raw: unknown): number | null {
	if (typeof raw !== 'string' || !raw.startsWith(CURSOR_PREFIX)) return null;
	const match = /^offset:(\d+)$/.exec(
		Buffer.from(raw.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'),
	);
	return match ? Number(match[1]) : null;
}

/** A non-negative integer query parameter within [min, max], or a details entry saying what is wrong. */
function integerParam(
	req: Request,
	name: string,
	fallback: number,
	min: number,
	max: number,
	problems: ErrorDetail[],
): number {
	const raw = req.query[name];
	if (raw === undefined) return fallback;
	const range = max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
	if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
		problems.push({
			field: name,
			message: `${name} must be ${range} (got ${JSON.stringify(raw)})`,
		});
		return fallback;
	}
	const value = Number(raw);
	if (value < min || value > max) {
		problems.push({ field: name, message: `${name} must be ${range} (got ${raw})` });
	}
	return value;
}

export function readPageRequest(req: Request, personality: Personality): PageRequest {
	const problems: ErrorDetail[] = [];
	let skip = integerParam(req, 'skip', 0, 0, Infinity, problems);
	const limit = integerParam(req, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, problems);
	if (problems.length > 0) throw validationError(problems, 'Query');
	if (personality.listHints === 'next' && req.query.cursor !== undefined) {
		const offset = decodeCursor(req.query.cursor);
		if (offset === null) {
			const message = 'cursor must be the `next` value of a previous list answer, unchanged';
			throw new ApiError(400, 'validation_failed', `Query validation failed: ${message}`, [
				{ field: 'cursor', message },
			]);
		}
		skip = offset;
	}
	return {
		skip,
		limit: personality.listPageCap === null ? limit : Math.min(limit, personality.listPageCap),
	};
}

/** `[skip, skip + limit)` of `items` in the service's order, without copying the whole list. */
export function sliceInOrder<T>(
	items: readonly T[],
	page: PageRequest,
	order: Personality['listOrder'],
): T[] {
	if (order !== 'newestFirst') return items.slice(page.skip, page.skip + page.limit);
	const end = Math.max(0, items.length - page.skip);
	return items.slice(Math.max(0, end - page.limit), end).reverse();
}

/** The end hint fields that sit beside `data` (none for 'none'). */
export function listHintFields(
	personality: Personality,
	returned: number,
	position: PagePosition,
): Record<string, unknown> {
	const after = position.skip + returned;
	const hasMore = after < position.total;
	if (personality.listHints === 'hasMore') return { hasMore };
	if (personality.listHints === 'next') return { next: hasMore ? encodeCursor(after) : null };
	return {};
}
