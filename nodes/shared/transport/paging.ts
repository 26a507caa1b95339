import { type IDataObject, NodeOperationError } from 'n8n-workflow';

import { asRecord, recordId } from './record';
import {
	type ApiRequest,
	type PartnerLeadsFunctions,
	apiRequestRaw,
	unwrapEnvelope,
} from './request';

/** The page's items, and `hasMore: false` when the service says nothing comes after it. */
function readListPage<T>(body: unknown): { items: T[]; hasMore?: boolean } {
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

/** The largest page the client asks for. The service may answer fewer: its cap is not published. */
export const MAX_PAGE_SIZE = 100;

/** Most pages requested ahead; a list's end costs at most this many extra requests. */
export const READ_AHEAD_PAGES = 16;

/** Pages in a row that bring nothing new before the listing gives up (a service that ignores `skip`). */
const MAX_PAGES_WITHOUT_PROGRESS = 3;

export interface PagingRequest extends Omit<ApiRequest, 'method' | 'qs'> {
	qs?: IDataObject;
	/** items wanted in all; undefined = all there are */
	limit?: number;
	/** carry on where an earlier listing stopped (`ListReader.resumeToken`) */
	resumeToken?: string;
	/** pages requested ahead at most; default READ_AHEAD_PAGES, 0 reads one page at a time */
	readAhead?: number;
	/** requests sent at most (read ahead included): past it the list pauses at `resumeToken` */
	maxRequests?: number;
}

function lastIndexWhere<T>(items: T[], test: (item: T) => boolean): number {
	for (let index = items.length - 1; index >= 0; index--) if (test(items[index])) return index;
	return -1;
}

/**
 * Reads a list by `skip`/`limit`. A short page does not end it (pages may be capped). Each request
 * re-reads the last record (the anchor); if it is gone, records were deleted and the reader steps
 * back, so none is skipped. Each record comes out once (by id).
 */
export class ListReader<T> {
	private readonly seen = new Set<string>();
	private position = 0;
	private anchor: string | undefined;
	private remaining: number;
	private largestPage = 0;
	private stepBack = 0;
	private pagesWithoutProgress = 0;
	/** pages that may bring nothing new after a step back, while the reader walks forward again */
	private walkBackPages = 0;
	private ended = false;
	private firstId: string | undefined;
	/** the largest page actually answered (a resumed reader's largestPage is a guess) */
	private pageSize = 0;
	private readonly ahead: ReadAhead;
	/** requests sent so far, read ahead included */
	requestsSent = 0;
	private readonly maxRequests: number;
	/** `maxRequests` were sent: the list pauses, `resumeToken` says where */
	private outOfRequests = false;

	constructor(
		private readonly context: PartnerLeadsFunctions,
		private readonly request: PagingRequest,
	) {
		this.remaining =
			request.limit === undefined ? Infinity : Math.max(0, Math.floor(request.limit));
		this.maxRequests = Math.max(1, Math.floor(request.maxRequests ?? Infinity));
		this.ahead = new ReadAhead(
			(qs) => {
				this.requestsSent++;
				return apiRequestRaw.call(context, {
					...request,
					method: 'GET',
					qs: { ...request.qs, ...qs },
				});
			},
			Math.max(0, Math.floor(request.readAhead ?? READ_AHEAD_PAGES)),
		);
		const resume = /^(\d+)(?::(.*))?$/s.exec(request.resumeToken ?? '');
		if (resume) {
			this.position = Number(resume[1]);
			this.anchor = resume[2] || undefined;
			if (this.anchor !== undefined) this.seen.add(this.anchor);
			this.largestPage = 2;
		}
	}

	/** Where a later listing can carry on from; undefined once the list has ended. */
	get resumeToken(): string | undefined {
		return this.ended ? undefined : this.positionToken;
	}

	/** Where the reader stands, at the end of the list too (to read what comes after it later). */
	get positionToken(): string {
		return this.anchor === undefined ? String(this.position) : `${this.position}:${this.anchor}`;
	}

	/** The next records not read before; undefined when the list has ended or enough were read. */
	async nextPage(): Promise<T[] | undefined> {
		while (!this.ended && this.remaining > 0 && !this.outOfRequests) {
			const page = await this.readPage();
			if (page !== undefined && page.length > 0) return page;
		}
		return undefined;
	}

	/** One request: the fresh records it brought (maybe none), or undefined to ask again. */
	private async readPage(): Promise<T[] | undefined> {
		// A service with pages of one record cannot carry an anchor: read it without one.
		const anchored = this.anchor !== undefined && this.largestPage !== 1;
		const skip = anchored ? Math.max(0, this.position - 1 - this.stepBack) : this.position;
		const reread = this.position - skip;
		const limit = Math.min(MAX_PAGE_SIZE, this.remaining + reread);
		if (!this.ahead.has(skip, limit) && this.requestsSent >= this.maxRequests) {
			this.outOfRequests = true;
			return undefined;
		}
		const body = await this.ahead.read(skip, limit);
		const { items, hasMore } = readListPage<T>(body);
		this.largestPage = Math.max(this.largestPage, items.length);
		this.pageSize = Math.max(this.pageSize, items.length);
		const page = this.judge(items, skip, reread, anchored, hasMore);
		this.requestAhead(items.length);
		return page;
	}

	/** While pages come back full, the next requests are known: send them ahead. */
	private requestAhead(pageLength: number): void {
		const size = this.pageSize;
		if (this.ended || this.stepBack > 0 || size < 2 || pageLength < size) {
			this.ahead.forget();
			return;
		}
		const anchored = this.anchor !== undefined;
		const pages: Array<{ skip: number; limit: number }> = [];
		let skip = anchored ? this.position - 1 : this.position;
		let remaining = this.remaining;
		const room = this.maxRequests - this.requestsSent + this.ahead.pending;
		while (pages.length < Math.min(this.ahead.window, room) && remaining > 0) {
			const reread = anchored ? 1 : 0;
			pages.push({ skip, limit: Math.min(MAX_PAGE_SIZE, remaining + reread) });
			skip += size - reread;
			remaining -= size - reread;
		}
		this.ahead.expect(pages);
	}

	/** What one answer brings: its fresh records (maybe none), or undefined to ask again. */
	private judge(
		items: T[],
		skip: number,
		reread: number,
		anchored: boolean,
		hasMore: boolean | undefined,
	): T[] | undefined {
		const firstId = items.length > 0 ? recordId(items[0]) : undefined;
		if (skip === 0) this.firstId ??= firstId;
		// Asked to skip, answered from the start: the list is not paged, the first page had all.
		else if (firstId !== undefined && firstId === this.firstId && this.stepBack === 0)
			return this.end();

		let start = 0;
		if (anchored) {
			const lastRead = lastIndexWhere(items, (item) => this.seen.has(recordId(item) ?? ''));
			if (lastRead === -1 && skip > 0) {
				// The anchor and all re-read are gone (deletions): step back to a record read before.
				this.stepBack =
					this.stepBack === 0
						? Math.max(1, Math.min(10, Math.floor(this.largestPage / 2)))
						: this.stepBack * 2;
				this.walkBackPages = Math.ceil(this.stepBack / Math.max(1, this.largestPage - 1)) + 1;
				return undefined;
			}
			start = lastRead + 1;
			// Nothing after the records read, found in place or further back: the end of the list.
			if (start === items.length && lastRead <= reread - 1) return this.end();
		} else if (items.length === 0) {
			return this.end();
		}
		this.stepBack = 0;

		const fresh = this.takeFresh(items.slice(start));
		this.position = skip + items.length;
		const last = items.length > 0 ? recordId(items[items.length - 1]) : undefined;
		this.anchor = last ?? this.anchor;
		if (hasMore === false) return this.end(fresh);
		this.checkProgress(fresh.length);
		return fresh;
	}

	/** The records not read before, up to what is still wanted; all of them are remembered. */
	private takeFresh(items: T[]): T[] {
		const fresh: T[] = [];
		for (const item of items) {
			const id = recordId(item);
			if (id !== undefined) {
				if (this.seen.has(id)) continue;
				this.seen.add(id);
			}
			if (fresh.length < this.remaining) fresh.push(item);
		}
		this.remaining -= fresh.length;
		return fresh;
	}

	/** Fails the list when page after page brings nothing new (a service that ignores "skip"). */
	private checkProgress(freshCount: number): void {
		if (freshCount > 0) this.pagesWithoutProgress = this.walkBackPages = 0;
		else this.pagesWithoutProgress++;
		if (this.pagesWithoutProgress >= MAX_PAGES_WITHOUT_PROGRESS + this.walkBackPages) {
			throw new NodeOperationError(
				this.context.getNode(),
				`The service keeps answering the same records for the ${this.request.what}`,
				{
					description:
						'Reading further pages brought nothing new, so the list may be incomplete. The service may not support paging with "skip" and "limit". Contact the service provider.',
				},
			);
		}
	}

	/** Waits for the requests read ahead that are still on their way (see ReadAhead.settle). */
	async settle(): Promise<void> {
		await this.ahead.settle();
	}

	private end(fresh: T[] = []): T[] {
		this.ended = true;
		this.ahead.forget();
		return fresh;
	}
}

/** Requests sent ahead; the window doubles while they are used, back to one when not. */
class ReadAhead {
	private readonly inFlight = new Map<string, Promise<unknown>>();
	/** requests sent ahead and not used, until they are answered */
	private readonly unused = new Set<Promise<unknown>>();
	window = 1;

	constructor(
		private readonly send: (qs: { skip: number; limit: number }) => Promise<unknown>,
		private readonly most: number,
	) {
		if (most === 0) this.window = 0;
	}

	/** requests sent ahead and not read yet */
	get pending(): number {
		return this.inFlight.size;
	}

	has(skip: number, limit: number): boolean {
		return this.inFlight.has(`${skip}:${limit}`);
	}

	read(skip: number, limit: number): Promise<unknown> {
		const key = `${skip}:${limit}`;
		const early = this.inFlight.get(key);
		this.inFlight.delete(key);
		if (early) {
			this.window = Math.min(this.most, this.window * 2);
			return early;
		}
		this.forget();
		return this.sendNow({ skip, limit });
	}

	expect(pages: Array<{ skip: number; limit: number }>): void {
		const wanted = new Set(pages.map(({ skip, limit }) => `${skip}:${limit}`));
		for (const [key, answer] of this.inFlight) {
			if (wanted.has(key)) continue;
			this.keepUntilAnswered(answer);
			this.inFlight.delete(key);
		}
		for (const page of pages) {
			const key = `${page.skip}:${page.limit}`;
			if (!this.inFlight.has(key)) this.inFlight.set(key, this.sendNow(page));
		}
	}

	/** Answers still on their way are not used (their failures are already caught); start small again. */
	forget(): void {
		if (this.inFlight.size > 0) this.window = Math.min(this.most, 1);
		for (const answer of this.inFlight.values()) this.keepUntilAnswered(answer);
		this.inFlight.clear();
	}

	/** Waits until no request sent ahead is still on its way, so none outlives the listing. */
	async settle(): Promise<void> {
		this.forget();
		await Promise.allSettled([...this.unused]);
	}

	private keepUntilAnswered(answer: Promise<unknown>): void {
		this.unused.add(answer);
		void answer.finally(() => this.unused.delete(answer)).catch(() => undefined);
	}

	private sendNow(qs: { skip: number; limit: number }): Promise<unknown> {
		const answer = this.send(qs);
		answer.catch(() => undefined);
		return answer;
	}
}

/** The records of a list, a page at a time, each once (see ListReader). */
export async function* pagesOf<T>(
	this: PartnerLeadsFunctions,
	request: PagingRequest,
): AsyncGenerator<T[]> {
	const reader = new ListReader<T>(this, request);
	try {
		for (let page = await reader.nextPage(); page !== undefined; page = await reader.nextPage())
			yield page;
	} finally {
		// also when the caller stops early (enough records): no request outlives the listing
		await reader.settle();
	}
}

/** The whole list (or its first `limit` records) in one array. */
export async function allOf<T>(this: PartnerLeadsFunctions, request: PagingRequest): Promise<T[]> {
	const records: T[] = [];
	for await (const page of pagesOf.call(this, request) as AsyncGenerator<T[]>)
		records.push(...page);
	return records;
}
