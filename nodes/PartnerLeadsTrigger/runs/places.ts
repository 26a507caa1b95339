import type { RunOutcome } from './executor';

/**
 * The places where the trigger's executions run, and how many waiting runs one execution may
 * carry (Options > Events per Execution Under Load).
 *
 * Each execution costs n8n the same whatever it carries: on n8n 2.x an expression isolate for
 * the execution, its rows, its lifecycle events; for the delivery that started it, another
 * isolate (n8n skips that one only for its own Webhook node). Under a backlog, runs that wait
 * for a place can share one execution, each run an item of its own: a burst then runs 1.5 to 3
 * times faster (bench/README.md). Without a backlog a run never waits, so it runs alone.
 */

/**
 * Executions of one trigger node under way at once. n8n itself starts every execution at once
 * unless its concurrency limit is set; under a burst of hundreds that starves its event loop
 * and its database. A few at a time keep n8n's CPU busy without queueing behind each other.
 */
export const RUN_CONCURRENCY = { runs: 16 };

/** The most runs taken up (their leads read) and waiting to share at once: twice the places' 16. */
export const MAX_EVENTS_PER_EXECUTION = 2 * RUN_CONCURRENCY.runs;

/** Events per Execution Under Load as set: 1 (each run alone) unless a whole number above 1. */
export function eventsPerExecution(value: unknown): number {
	const count = Math.floor(Number(value));
	return Number.isFinite(count) && count > 1 ? Math.min(count, MAX_EVENTS_PER_EXECUTION) : 1;
}

/**
 * Places for executions: RUN_CONCURRENCY when each run is alone; fewer when runs may share, so
 * that runs wait and share even when no more than RUN_CONCURRENCY deliveries arrive at once
 * (each waiting for its run), and n8n runs about as many items at once as before.
 */
export function placesFor(runsPerExecution: number): number {
	return runsPerExecution === 1
		? RUN_CONCURRENCY.runs
		: Math.max(2, Math.ceil(RUN_CONCURRENCY.runs / runsPerExecution));
}

interface Waiting<T> {
	request: T;
	resolve: (outcome: RunOutcome) => void;
	reject: (error: unknown) => void;
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
 * place free starts alone at once.
 */
export class ExecutionPlaces<T> {
	private readonly waiting: Array<Waiting<T>> = [];

	private busy = 0;

	constructor(
		readonly places: number,
		readonly runsPerExecution: number,
		private readonly execute: (requests: T[]) => Promise<RunOutcome[]>,
		private readonly sharing: (request: T) => Sharing,
		private readonly freed: () => void,
	) {}

	/** Runs taken up at once: enough to fill every place, at most MAX_EVENTS_PER_EXECUTION. */
	get runsAtOnce(): number {
		return Math.min(this.places * this.runsPerExecution, MAX_EVENTS_PER_EXECUTION);
	}

	/** Runs the request in the next execution a place starts; settles with its outcome. */
	run(request: T): Promise<RunOutcome> {
		return new Promise<RunOutcome>((resolve, reject) => {
			this.waiting.push({ request, resolve, reject });
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

	private dispatch(): void {
		while (this.busy < this.places && this.waiting.length > 0) {
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
