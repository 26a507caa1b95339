import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { recordId } from './record';
import { readListPage } from './envelope';
import type { ApiRequest, PartnerLeadsFunctions } from './request';
import { apiRequestRaw } from './request';

/** The largest page the client asks for. The service may answer fewer: its cap is not published. */
export const MAX_PAGE_SIZE = 100;

/**
 * The most pages requested ahead of the one being read. A read-ahead page is only used when
 * the reader, having read the pages before it, asks for exactly that page; a list's end
 * costs at most this many requests more.
 */
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
}

function lastIndexWhere<T>(items: T[], test: (item: T) => boolean): number {
	for (let index = items.length - 1; index >= 0; index--) if (test(items[index])) return index;
	return -1;
}

/**
 * Reads a list by `skip`/`limit`, assuming nothing the service does not promise:
 * - a page shorter than asked does not end the list (the service may cap its pages below what
 *   is asked); only a page with nothing after what was already read, or an explicit
 *   `hasMore: false` / `next: null`, does;
 * - each request reads the last item of the previous page again (the anchor). Where the
 *   anchor turns up tells whether records behind the position were deleted or added
 *   meanwhile; when it is gone, the reader steps back until it finds a record it has read.
 *   So deletions in the portal while a list is read never hide a record, at the cost of one
 *   record per request;
 * - every record comes out once (by id), whatever the service's order.
 * - pages are requested ahead (see ReadAhead): while the pages come back full, the next
 *   requests are known, so several are in flight at once. The records of each answer are
 *   judged exactly as above, whenever it was read, so a page read ahead that no longer fits
 *   (deletions, additions, a short page) is just not used.
 * The ids read are kept to tell new records from ones read before.
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
	/** id of the first record of the list's first page */
	private firstId: string | undefined;
	/** the largest page actually answered (a resumed reader's largestPage is a guess) */
	private pageSize = 0;
	private readonly ahead: ReadAhead;

	constructor(
		private readonly context: PartnerLeadsFunctions,
		private readonly request: PagingRequest,
	) {
		this.remaining =
			request.limit === undefined ? Infinity : Math.max(0, Math.floor(request.limit));
		this.ahead = new ReadAhead(
			(qs) =>
				apiRequestRaw.call(context, { ...request, method: 'GET', qs: { ...request.qs, ...qs } }),
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
		if (this.ended) return undefined;
		return this.anchor === undefined ? String(this.position) : `${this.position}:${this.anchor}`;
	}

	/** The next records not read before; undefined when the list has ended or enough were read. */
	async nextPage(): Promise<T[] | undefined> {
		while (!this.ended && this.remaining > 0) {
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
		const body = await this.ahead.read(skip, limit);
		const { items, hasMore } = readListPage<T>(body);
		this.largestPage = Math.max(this.largestPage, items.length);
		this.pageSize = Math.max(this.pageSize, items.length);
		const page = this.judge(items, skip, reread, anchored, hasMore);
		this.requestAhead(items.length);
		return page;
	}

	/**
	 * While pages come back full, the next pages' requests are known: each starts where the
	 * one before ends, less the anchor. Not after a step back, nor near the end of what is wanted.
	 */
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
		while (pages.length < this.ahead.window && remaining > 0) {
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
		// Asked to skip, answered from the start again: the service does not page this list,
		// so its first answer held all of it.
		else if (firstId !== undefined && firstId === this.firstId && this.stepBack === 0)
			return this.end();

		let start = 0;
		if (anchored) {
			const lastRead = lastIndexWhere(items, (item) => this.seen.has(recordId(item) ?? ''));
			if (lastRead === -1 && skip > 0) {
				// The anchor and everything re-read with it are gone: records behind the position
				// were deleted. Step back until a record read before turns up, then walk forward.
				this.stepBack =
					this.stepBack === 0
						? Math.max(1, Math.min(10, Math.floor(this.largestPage / 2)))
						: this.stepBack * 2;
				this.walkBackPages = Math.ceil(this.stepBack / Math.max(1, this.largestPage - 1)) + 1;
				return undefined;
			}
			start = lastRead + 1;
			// Nothing after the records read, found where they were left or further back (deletions):
			// the end of the list. Found further on, records were added before them: read on.
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

/**
 * The requests of a list, some sent ahead of time: `expect` names the pages (skip, limit)
 * the reader will ask for next, and `read` answers from those already in flight when the
 * reader asks for one of them, or sends the request then. The window starts at one page and
 * doubles while the pages read ahead are used (up to its most), and falls back to one when
 * one is not: a short list costs no request more, a long one is read `window` pages at a time.
 */
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

	/** A 429: ask for fewer pages ahead; the window grows again as pages read ahead are used. */
	slowDown(): void {
		this.window = Math.min(this.most, 1);
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
