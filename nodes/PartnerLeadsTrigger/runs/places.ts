import { sleep } from 'n8n-workflow';

/** How a run ended here. 'notStarted': not here (its delivery is answered without waiting). */
export type RunOutcome = 'finished' | 'notStarted';

/**
 * An execution costs n8n the same whatever it carries, so under a backlog waiting runs may share
 * one (Leads per Execution Under Load): a burst then runs about twice as fast (bench/README.md).
 */

/** Executions per trigger at once: n8n would start all, and a burst starves its loop and DB. */
export const RUN_CONCURRENCY = { runs: 16 };

/** The most leads one execution carries (the option's maximum). */
export const MAX_LEADS_PER_EXECUTION = 32;

/** Leads read at once while runs are taken up, so a burst does not flood the service. */
export const LEAD_READS_AT_ONCE = 2 * RUN_CONCURRENCY.runs;

/** Leads per Execution Under Load: 1 (the default) unless a whole number above 1. */
export function leadsPerExecution(value: unknown): number {
	const count = Math.floor(Number(value));
	return Number.isFinite(count) && count > 1 ? Math.min(count, MAX_LEADS_PER_EXECUTION) : 1;
}

/** With sharing under load, how long a run waits for others to fill its execution. */
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
	/** Only a delivered event's first run; others keep a deduplication key of their own. */
	mayShare: boolean;
}

/**
 * Hands waiting runs to free places, oldest first, adding other leads' runs when they may share.
 * Below `holdsBelow` executions a run starts at once; past it, when full or after GATHER.ms.
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

	/** Executions under way (emitted, not ended). */
	get executing(): number {
		return this.busy;
	}

	/** Runs taken up at once (read, waiting for a place, executing): enough to fill every place. */
	get runsAtOnce(): number {
		return this.places * this.runsPerExecution;
	}

	/** Below this many runs a delivery's run starts at once and is waited for; few with sharing. */
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

	/** Starts nothing more; waiting runs settle as not started and stay in flight. */
	close(): void {
		this.closed = true;
		this.gathering?.abort();
		for (const waiting of this.waiting.splice(0)) waiting.resolve('notStarted');
	}

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
