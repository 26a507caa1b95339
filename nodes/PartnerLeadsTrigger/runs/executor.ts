import { createHash } from 'crypto';
import type { IDataObject, INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

import { maxEventAgeSeconds } from '../state/eventAge';
import { ProductionNodeMemories } from '../../shared/state/processMemory';
import { nodeScope } from '../../shared/state/scope';
import type { InFlightRun } from '../state/runsInFlight';
import { RunRecords } from './records';
import type { RunOutcome, RunRequest } from './runRequest';
import { RunQueue } from './queue';
import { ExecutionPlaces, leadsPerExecution, RUN_CONCURRENCY } from './places';

/**
 * Runs started through the trigger's own `trigger()`, where n8n says when each execution has
 * finished (emit's done promise; a webhook never learns it). `trigger()` lives in the process
 * that runs triggers: the one main process, or the leader in queue mode. A delivery reaching
 * that process is accepted into the runs in flight (saved before its 200) and run from here,
 * a few at a time (places.ts): a burst is taken in as fast as n8n saves, and run at the pace
 * n8n can take, under a backlog several runs to an execution when the node's options say so.
 * A hard kill leaves the runs in flight in static data; those not started run when n8n is
 * back, those started run again, marked.
 */

/** How the trigger marks a run of an event it ran before: its execution was interrupted. */
export const RERUN_MARK = { recovered: true, recoveryReason: 'interrupted' } as const;

/**
 * How it marks the run again, alone, of a lead whose execution shared with other leads failed:
 * the lead the workflow fails on fails again alone, every other one gets its own execution.
 */
export const SHARED_EXECUTION_FAILED_MARK = {
	recovered: true,
	recoveryReason: 'sharedExecutionFailed',
} as const;

/** Whether n8n reports the execution as failed (a node's error not handled by its On Error). */
function executionFailed(run: IRun | undefined): boolean {
	return run?.status === 'error' || run?.data?.resultData?.error !== undefined;
}

export class RunExecutor {
	private readonly running = new Map<string, Promise<RunOutcome>>();

	/** runs whose shared execution failed, until their run again alone starts */
	private readonly failedTogether = new Set<string>();

	private readonly maxAgeSeconds: number;

	readonly queue: RunQueue;

	readonly places: ExecutionPlaces<RunRequest>;

	/** the closed executor of the trigger this one replaced (a workflow updated), while it runs */
	private previous?: RunExecutor;

	/** the executor that replaced this one once closed: runs still under way record there */
	private successor?: RunExecutor;

	private closed = false;

	constructor(private readonly context: ITriggerFunctions) {
		const options = context.getNodeParameter('options', {}) as {
			maxEventAgeHours?: number;
			leadsPerExecution?: number;
		};
		this.maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
		this.queue = new RunQueue(context, this);
		this.places = new ExecutionPlaces(
			RUN_CONCURRENCY.runs,
			leadsPerExecution(options.leadsPerExecution),
			async (requests) => await this.executeTogether(requests),
			(request) => ({
				leadId: request.run.leadId,
				mayShare:
					request.run.origin === 'delivered' &&
					(this.records().inFlight.get(request.run.key)?.attempts ?? 0) === 0,
			}),
			() => this.queue.wake(),
			() => this.queue.moreComing(),
		);
	}

	get scope(): string {
		return nodeScope(this.context);
	}

	/**
	 * The records, read through the static data of `trigger()`'s workflow (which emit saves):
	 * once replaced, the newest trigger's, so a run that ends after an update is recorded where
	 * the next save takes it.
	 */
	records(): RunRecords {
		return new RunRecords(
			this.newest().context.getWorkflowStaticData('node'),
			this.scope,
			this.maxAgeSeconds,
		);
	}

	/** This executor, or the newest of those that replaced it. */
	private newest(): RunExecutor {
		return this.successor?.newest() ?? this;
	}

	get isClosed(): boolean {
		return this.closed;
	}

	/**
	 * This trigger replaces a closed one of the same node that is still registered (a workflow
	 * updated; n8n 2.41 forgets the node's process memory before it closes the trigger, so there
	 * this does not happen yet: docs/design/burst.md). The runs that
	 * one still has under way are joined, not run again (this one's static data, read from the
	 * database, may not hold them as started yet), and their leads' next events wait for them;
	 * they record their end in this one's static data.
	 */
	takeOver(previous: RunExecutor): void {
		if (previous.underWay === 0) return;
		this.previous = previous;
		previous.successor = this;
	}

	/** Whether the trigger this one replaced still runs an event of this lead (see takeOver). */
	previousRunsLead(leadId: string): boolean {
		return this.stillRunningBefore()?.queue.runsLead(leadId) ?? false;
	}

	/** The trigger this one replaced while it has runs under way; forgotten after. */
	private stillRunningBefore(): RunExecutor | undefined {
		if (this.previous?.underWay === 0) this.previous = undefined;
		return this.previous;
	}

	private ended(key: string): void {
		this.running.delete(key);
		// the replacing trigger takes up what waited for this run
		this.successor?.wake();
	}

	/** How many runs are under way here (being prepared, waiting for a place, or executing). */
	get underWay(): number {
		return this.running.size;
	}

	/** The run of this key if it is under way here, or in the trigger this one replaced. */
	joined(key: string): Promise<RunOutcome> | undefined {
		return this.running.get(key) ?? this.stillRunningBefore()?.joined(key);
	}

	/** Runs accepted or left in flight are taken up (a delivery was accepted, n8n started). */
	wake(): void {
		this.queue.wake();
	}

	/**
	 * Stops taking up and starting runs (the trigger closes); executions under way still finish,
	 * and runs not started stay in flight for the next `trigger()`.
	 */
	close(): void {
		this.closed = true;
		this.queue.close();
		this.places.close();
	}

	/**
	 * Starts a run decided elsewhere (a recovered event), or joins the one of the same key under
	 * way. It is in flight from now on (saved with the next save, its emit at the latest), and
	 * its execution starts once a place is free.
	 */
	async start(request: RunRequest): Promise<RunOutcome> {
		const key = request.run.key;
		const underWay = this.running.get(key);
		if (underWay) return await underWay;
		const records = this.records();
		const attempts = records.inFlight.get(key)?.attempts ?? 0;
		records.queued({ ...request.run, attempts }, request.watch);
		const running = this.execute(request).finally(() => this.ended(key));
		this.running.set(key, running);
		return await running;
	}

	/** Runs a run the queue prepared (it is in flight already), holding its key meanwhile. */
	runPrepared(key: string, prepared: () => Promise<RunOutcome>): Promise<RunOutcome> {
		const running = prepared().finally(() => this.ended(key));
		this.running.set(key, running);
		return running;
	}

	/** Runs the run in the next execution a place starts, and records how it ended. */
	async execute(request: RunRequest): Promise<RunOutcome> {
		return await this.places.run(request);
	}

	/** Emits one execution whose items are these runs, and records how it ended for each. */
	private async executeTogether(requests: RunRequest[]): Promise<RunOutcome[]> {
		const records = this.records();
		const runs = requests.map((request) => {
			const attempts = (records.inFlight.get(request.run.key)?.attempts ?? 0) + 1;
			return { ...request.run, attempts } as InFlightRun;
		});
		const items: INodeExecutionData[] = requests.map((request, index) => ({
			json: { ...request.json, ...this.runAgainMark(runs[index]) },
		}));
		const done = this.context.helpers.createDeferredPromise<IRun>();
		requests.forEach((request, index) => records.started(runs[index], request.watch));
		// saved by n8n with this emit, before the execution exists
		records.writeBack();
		this.context.emit([items], undefined, done, this.deduplicationKey(runs));
		let run: IRun | undefined;
		try {
			// resolved with the run, or with nothing when n8n refused a second execution of the key
			run = await done.promise;
		} catch {
			// n8n did not start the execution (the error is in n8n's log)
			const after = this.records();
			requests.forEach((request, index) => after.notStarted(runs[index].key, request.watch));
			return requests.map(() => 'notStarted');
		}
		if (runs.length > 1 && executionFailed(run)) {
			// Which lead failed is not known: each stays in flight and runs again alone (the queue
			// takes it up again; a run again never shares), so only that lead stands failed.
			runs.forEach((failed) => this.failedTogether.add(failed.key));
			return requests.map(() => 'notStarted');
		}
		const after = this.records();
		requests.forEach((request, index) => after.finished(runs[index], request.version));
		return requests.map(() => 'finished');
	}

	/** The mark of a run again: after its shared execution failed, or after an interruption. */
	private runAgainMark(run: InFlightRun): IDataObject {
		if (this.failedTogether.delete(run.key)) return SHARED_EXECUTION_FAILED_MARK;
		return run.attempts > 1 ? RERUN_MARK : {};
	}

	/**
	 * n8n 2.20+ keeps at most one execution per key (earlier versions ignore it). A delivered
	 * event's first run has one key and every run again another: a run whose finish was not saved
	 * yet when n8n stopped (no delivery waited for it) is not started twice. A recovered event
	 * keeps its key: no delivery ever waits for its run, so a finished run is the likelier case
	 * than one interrupted (that one stays in n8n's executions list as crashed). Runs sharing an
	 * execution (delivered first runs only) share a key made of all of theirs: it is refused only
	 * where the same runs ran. A restart seldom groups them alike, so n8n's refusal does not
	 * cover a shared execution whose emit's save n8n had not finished at a kill.
	 */
	private deduplicationKey(runs: InFlightRun[]): string {
		const keys = runs.map((run) => {
			const attempt = run.origin === 'recovered' ? 1 : Math.min(run.attempts, 2);
			return `${run.key}:${attempt}`;
		});
		if (keys.length === 1) return `partner-leads:${this.scope}:${keys[0]}`;
		const together = createHash('sha256').update(keys.sort().join('\n')).digest('base64url');
		return `partner-leads:${this.scope}:together:${together}`;
	}
}

const executors = new ProductionNodeMemories<RunExecutor>('runExecutors');

/** Makes this `trigger()` the one that runs the node's events in this process. */
export function registerRunExecutor(context: ITriggerFunctions): RunExecutor {
	const executor = new RunExecutor(context);
	const previous = executors.get(executor.scope);
	if (previous?.isClosed) executor.takeOver(previous);
	executors.set(executor.scope, executor);
	return executor;
}

/**
 * Stops handing events to this executor (the trigger closes); runs under way still finish. It
 * stays known while they do, for a trigger() that replaces it (takeOver).
 */
export function unregisterRunExecutor(executor: RunExecutor): void {
	executor.close();
	if (executors.get(executor.scope) === executor && executor.underWay === 0)
		executors.delete(executor.scope);
}

/** The executor of a trigger node in this process, if its `trigger()` runs here. */
export function runExecutorFor(scope: string): RunExecutor | undefined {
	const executor = executors.get(scope);
	return executor?.isClosed ? undefined : executor;
}
