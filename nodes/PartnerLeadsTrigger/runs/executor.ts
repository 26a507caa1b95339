import type { IDataObject, IRun, ITriggerFunctions } from 'n8n-workflow';

import { maxEventAgeSeconds } from '../state/eventAge';
import { ProductionNodeMemories } from '../../shared/state/processMemory';
import type { LeadVersion } from '../../shared/changes/versions';
import { nodeScope } from '../../shared/state/scope';
import type { WatchedRecord } from '../state/watchedLeads';
import type { InFlightRun } from '../state/runsInFlight';
import { RunRecords } from './records';
import { RUN_CONCURRENCY, RunQueue } from './queue';

/**
 * Runs started through the trigger's own `trigger()`, where n8n says when each execution has
 * finished (emit's done promise; a webhook never learns it). `trigger()` lives in the process
 * that runs triggers: the one main process, or the leader in queue mode. A delivery reaching
 * that process is accepted into the runs in flight (saved before its 200) and run from here,
 * a few at a time (RUN_CONCURRENCY): a burst is taken in as fast as n8n saves, and run at the
 * pace n8n can take. A hard kill leaves the runs in flight in static data; those not started
 * run when n8n is back, those started run again, marked.
 */

/** How the trigger marks a run of an event it ran before: its execution was interrupted. */
export const RERUN_MARK = { recovered: true, recoveryReason: 'interrupted' } as const;

export type RunOutcome = 'finished' | 'notStarted';

export interface RunRequest {
	run: Omit<InFlightRun, 'attempts'>;
	/** the item, as a first run gives it */
	json: IDataObject;
	/** recorded as run once the execution finished */
	version: LeadVersion;
	/** the lead's watched values, kept from the start of the run */
	watch?: WatchedRecord;
}

export class RunExecutor {
	private readonly running = new Map<string, Promise<RunOutcome>>();

	private readonly slots: Array<() => void> = [];

	private executing = 0;

	private readonly maxAgeSeconds: number;

	readonly queue: RunQueue;

	constructor(private readonly context: ITriggerFunctions) {
		const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
		this.maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
		this.queue = new RunQueue(context, this);
	}

	get scope(): string {
		return nodeScope(this.context);
	}

	/** The records, read through the static data of `trigger()`'s workflow (which emit saves). */
	records(): RunRecords {
		return new RunRecords(
			this.context.getWorkflowStaticData('node'),
			this.scope,
			this.maxAgeSeconds,
		);
	}

	/** How many runs are under way here (being prepared, waiting for a place, or executing). */
	get underWay(): number {
		return this.running.size;
	}

	/** The run of this key if it is under way here. */
	joined(key: string): Promise<RunOutcome> | undefined {
		return this.running.get(key);
	}

	/** Runs accepted or left in flight are taken up (a delivery was accepted, n8n started). */
	wake(): void {
		this.queue.wake();
	}

	/** Stops taking up runs (the trigger closes); runs under way still finish. */
	close(): void {
		this.queue.close();
	}

	/**
	 * Starts a run decided elsewhere (a recovered event), or joins the one of the same key under
	 * way. It is in flight from now on (saved with the next save, its emit at the latest), and
	 * its execution starts once one of the RUN_CONCURRENCY places is free.
	 */
	async start(request: RunRequest): Promise<RunOutcome> {
		const key = request.run.key;
		const underWay = this.running.get(key);
		if (underWay) return await underWay;
		const records = this.records();
		const attempts = records.inFlight.get(key)?.attempts ?? 0;
		records.queued({ ...request.run, attempts }, request.watch);
		const running = this.execute(request).finally(() => this.running.delete(key));
		this.running.set(key, running);
		return await running;
	}

	/** Runs a run the queue prepared (it is in flight already), holding its key meanwhile. */
	runPrepared(key: string, prepared: () => Promise<RunOutcome>): Promise<RunOutcome> {
		const running = prepared().finally(() => this.running.delete(key));
		this.running.set(key, running);
		return running;
	}

	/** Emits the run's execution once a place is free, and records how it ended. */
	async execute(request: RunRequest): Promise<RunOutcome> {
		await this.slot();
		try {
			const records = this.records();
			const attempts = (records.inFlight.get(request.run.key)?.attempts ?? 0) + 1;
			const run: InFlightRun = { ...request.run, attempts };
			const json = attempts > 1 ? { ...request.json, ...RERUN_MARK } : request.json;
			records.started(run, request.watch);
			// saved by n8n with this emit, before the execution exists
			records.writeBack();
			const done = this.context.helpers.createDeferredPromise<IRun>();
			this.context.emit([[{ json }]], undefined, done, this.deduplicationKey(run));
			try {
				// resolved with the run, or with nothing when n8n refused a second execution of the key
				await done.promise;
			} catch {
				// n8n did not start the execution (the error is in n8n's log)
				this.records().notStarted(run.key, request.watch);
				return 'notStarted';
			}
			this.records().finished(run, request.version);
			return 'finished';
		} finally {
			this.release();
		}
	}

	private async slot(): Promise<void> {
		if (this.executing < RUN_CONCURRENCY.runs) {
			this.executing++;
			return;
		}
		await new Promise<void>((resolve) => this.slots.push(resolve));
	}

	/** Hands the place to the next run waiting for one, or frees it. */
	private release(): void {
		const next = this.slots.shift();
		if (next) next();
		else this.executing--;
		this.queue.wake();
	}

	/**
	 * n8n 2.20+ keeps at most one execution per key (earlier versions ignore it). A delivered
	 * event's first run has one key and every run again another: a run whose finish was not saved
	 * yet when n8n stopped (no delivery waited for it) is not started twice. A recovered event
	 * keeps its key: no delivery ever waits for its run, so a finished run is the likelier case
	 * than one interrupted (that one stays in n8n's executions list as crashed).
	 */
	private deduplicationKey(run: InFlightRun): string {
		const attempt = run.origin === 'recovered' ? 1 : Math.min(run.attempts, 2);
		return `partner-leads:${this.scope}:${run.key}:${attempt}`;
	}
}

const executors = new ProductionNodeMemories<RunExecutor>('runExecutors');

/** Makes this `trigger()` the one that runs the node's events in this process. */
export function registerRunExecutor(context: ITriggerFunctions): RunExecutor {
	const executor = new RunExecutor(context);
	executors.set(executor.scope, executor);
	return executor;
}

/** Stops handing events to this executor (the trigger closes); runs under way still finish. */
export function unregisterRunExecutor(executor: RunExecutor): void {
	executor.close();
	if (executors.get(executor.scope) === executor) executors.delete(executor.scope);
}

/** The executor of a trigger node in this process, if its `trigger()` runs here. */
export function runExecutorFor(scope: string): RunExecutor | undefined {
	return executors.get(scope);
}
