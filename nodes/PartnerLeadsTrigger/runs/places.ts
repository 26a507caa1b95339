import { sleep } from 'n8n-workflow';

/** How a run ended here. 'notStarted': not here (its delivery is answered without waiting). */
export type RunOutcome = 'finished' | 'notStarted';

/**
 * The places where the trigger's executions run, and how many waiting runs one execution may
 * carry (Options > Leads per Execution Under Load; 1 unless the user chooses more).
 *
 * Each execution costs n8n the same whatever it carries: on n8n 2.x an expression isolate for
 * the execution, its rows, its lifecycle events; for the delivery that started it, another
 * isolate (n8n skips that one only for its own Webhook node). Where the user chooses it, under a
 * backlog runs that wait for a place share one execution, each run an item of its own: a burst
 * then runs about twice as fast (bench/README.md). While few executions are under way a run
 * starts at once, alone.
 */

/**
 * Executions of one trigger node under way at once. n8n itself starts every execution at once
 * unless its concurrency limit is set; under a burst of hundreds that starves its event loop
 * and its database. A few at a time keep n8n's CPU busy without queueing behind each other.
 * Runs sharing executions keep every place: a workflow that waits on each item (an AI model, a
 * slow API) still has as many items under way at once as with one execution per event.
 */
export const RUN_CONCURRENCY = { runs: 16 };

/** The most leads one execution carries (the option's maximum). */
export const MAX_LEADS_PER_EXECUTION = 32;

/** Leads read at once while runs are taken up, so a burst does not flood the service. */
export const LEAD_READS_AT_ONCE = 2 * RUN_CONCURRENCY.runs;

/**
 * Leads per Execution Under Load as set: 1 (each run an execution of its own, the default)
 * unless a whole number above 1.
 */
export function leadsPerExecution(value: unknown): number {
	const count = Math.floor(Number(value));
	return Number.isFinite(count) && count > 1 ? Math.min(count, MAX_LEADS_PER_EXECUTION) : 1;
}

/**
 * With sharing, while n8n is busy with the trigger, how long a waiting run waits for others to
 * fill its execution before it starts with fewer: short beside what a workflow takes.
 */
export const GATHER = { ms: 1_000 };

interface Waiting<T> {
	request: T;
	resolve: (outcome: RunOutcome) => void;
	reject: (error: unknown) => void;
	sinceMs: number;
}

/** What decides whether a waiting run may share an execution, and with which. */
export interface Sharing {
	leadId: string;
	/**
	 * Only a delivered event's first run shares. A recovered run or a run again keeps an
	 * execution of its own, and with it a deduplication key n8n can match after a restart.
	 */
	mayShare: boolean;
}

/**
 * Hands waiting runs to free places, oldest first: the oldest, and with it (when it may share)
 * up to `runsPerExecution - 1` more that may share, each of another lead. A run that finds a
 * place free while fewer than `holdsBelow` executions are under way starts at once, alone.
 * Past that, with sharing, an execution starts once a full one waits or the oldest run has
 * waited GATHER.ms: a burst fills its executions even with places free, and a workflow that
 * waits on each item still gets every place.
 */
export class ExecutionPlaces<T> {
	private readonly waiting: Array<Waiting<T>> = [];

	private busy = 0;

	/** the wait for runs to fill a shared execution, while one is under way */
	private gathering?: AbortController;

	private closed = false;

	constructor(
		readonly places: number,
		readonly runsPerExecution: number,
		private readonly execute: (requests: T[]) => Promise<RunOutcome[]>,
		private readonly sharing: (request: T) => Sharing,
		private readonly freed: () => void,
		/** whether other runs are on their way here (taken up, or in flight not taken up yet) */
		private readonly moreComing: () => boolean = () => true,
	) {}

	/** Runs taken up at once (read, waiting for a place, executing): enough to fill every place. */
	get runsAtOnce(): number {
		return this.places * this.runsPerExecution;
	}

	/**
	 * Runs under way below which a delivery's run starts at once and the delivery waits for it.
	 * With sharing, only the first few: past them a burst is answered as soon as n8n saved it, so
	 * its runs wait for a place and share, rather than each delivery holding a place of its own.
	 */
	get holdsBelow(): number {
		return this.runsPerExecution === 1
			? this.places
			: Math.max(2, Math.ceil(this.places / this.runsPerExecution));
	}

	/** Runs the request in the next execution a place starts; settles with its outcome. */
	run(request: T): Promise<RunOutcome> {
		if (this.closed) return Promise.resolve('notStarted');
		return new Promise<RunOutcome>((resolve, reject) => {
			this.waiting.push({ request, resolve, reject, sinceMs: Date.now() });
			this.dispatch();
		});
	}

	/** Takes the runs of the next execution out of the waiting ones. */
	private nextTogether(): Array<Waiting<T>> {
		const together = this.waiting.splice(0, 1);
		const first = this.sharing(together[0].request);
		if (this.runsPerExecution === 1 || !first.mayShare) return together;
		const leads = new Set([first.leadId]);
		for (let index = 0; index < this.waiting.length; ) {
			if (together.length === this.runsPerExecution) break;
			const { leadId, mayShare } = this.sharing(this.waiting[index].request);
			if (!mayShare || leads.has(leadId)) {
				index++;
				continue;
			}
			leads.add(leadId);
			together.push(...this.waiting.splice(index, 1));
		}
		return together;
	}

	/**
	 * Starts nothing more (the trigger closes: a workflow updated, unpublished, n8n stopping).
	 * Executions under way finish; runs waiting for a place settle as not started and stay in
	 * flight, for the next `trigger()` to run (it takes up every run in flight not started).
	 */
	close(): void {
		this.closed = true;
		this.gathering?.abort();
		for (const waiting of this.waiting.splice(0)) waiting.resolve('notStarted');
	}

	/** Whether the next execution starts now, or waits for more runs to share it. */
	private startsNow(): boolean {
		if (this.runsPerExecution === 1 || this.busy < this.holdsBelow) return true;
		if (this.waiting.length >= this.runsPerExecution) return true;
		if (!this.sharing(this.waiting[0].request).mayShare || !this.moreComing()) return true;
		return Date.now() - this.waiting[0].sinceMs >= GATHER.ms;
	}

	private gatherThenDispatch(): void {
		if (this.gathering) return;
		const gathering = new AbortController();
		this.gathering = gathering;
		const dueMs = this.waiting[0].sinceMs + GATHER.ms;
		void sleep(Math.max(0, dueMs - Date.now()), gathering.signal)
			.then(() => {
				this.gathering = undefined;
				this.dispatch();
			})
			.catch(() => undefined);
	}

	private dispatch(): void {
		while (!this.closed && this.busy < this.places && this.waiting.length > 0) {
			if (!this.startsNow()) {
				this.gatherThenDispatch();
				return;
			}
			const together = this.nextTogether();
			this.busy++;
			void this.execute(together.map((waiting) => waiting.request))
				.then(
					(outcomes) => together.forEach((waiting, index) => waiting.resolve(outcomes[index])),
					(error: unknown) => together.forEach((waiting) => waiting.reject(error)),
				)
				.finally(() => {
					this.busy--;
					this.dispatch();
					this.freed();
				});
		}
	}
}
