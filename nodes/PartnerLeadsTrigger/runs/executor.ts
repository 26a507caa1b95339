import { createHash } from 'crypto';
import type { IDataObject, INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';

import { maxEventAgeSeconds } from '../state/eventAge';
import { forgetTriggerNode, ProductionNodeMemories } from '../../shared/state/processMemory';
import { nodeScope, scopeOf } from '../../shared/state/scope';
import type { InFlightRun } from '../state/runsInFlight';
import { eventVersion } from '../state/runsInFlight';
import { RunRecords } from './records';
import type { PreparedRun } from './prepare';
import { RunQueue } from './queue';
import type { RunOutcome } from './places';
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

	readonly places: ExecutionPlaces<PreparedRun>;

	/** the closed executor of the trigger this one replaced (a workflow updated), while it runs */
	private previous?: RunExecutor;

	/** the executor that replaced this one once closed: runs still under way record there */
	private successor?: RunExecutor;

	private closed = false;

	/** n8n deleted the node's webhooks while runs were under way (see retire) */
	private retired = false;

	private lastEndedMs = 0;

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
			async (preparedRuns) => await this.executeTogether(preparedRuns),
			(prepared) => ({
				leadId: prepared.run.leadId,
				mayShare:
					prepared.run.origin === 'delivered' &&
					(this.records().inFlight.get(prepared.run.key)?.attempts ?? 0) === 0,
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

	get isRetired(): boolean {
		return this.retired;
	}

	/**
	 * This trigger replaces a closed one of the same node (a workflow updated: n8n deletes the
	 * old version's webhooks, closes its trigger, then starts this one). The runs that one still
	 * has under way are joined, not run again (this one's static data, read from the database,
	 * holds them as started or not yet), and their leads' next events wait for them; they record
	 * their end in this one's static data. Its process memory was kept for this (forgetWhenDone).
	 */
	takeOver(previous: RunExecutor): void {
		previous.successor = this;
		if (previous.underWay > 0) this.previous = previous;
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
		this.lastEndedMs = Date.now();
		// the replacing trigger takes up what waited for this run
		this.successor?.wake();
		if (this.closed && this.underWay === 0 && !this.retired) this.unregister();
	}

	/**
	 * n8n deleted the node's webhooks while runs were under way: an update (its new version's
	 * trigger takes them over) or a deactivation. The node's process memory is kept until a
	 * trigger replaced this one, or for REPLACEMENT_WAIT after its last run ended.
	 */
	retire(): void {
		this.retired = true;
	}

	/** Retired, idle and not replaced for long enough: nothing will take its memory over. */
	retiredLongAgo(nowMs: number): boolean {
		if (!this.retired || !this.closed || this.successor || this.underWay > 0) return false;
		return nowMs - this.lastEndedMs >= REPLACEMENT_WAIT.ms;
	}

	/** No longer the node's executor in this process (closed, and nothing left to hand over). */
	unregister(): void {
		if (executors.get(this.scope) === this) executors.delete(this.scope);
	}

	/** Forgets the node's process memory, this executor included. */
	forgetNode(): void {
		forgetTriggerNode(this.context.getWorkflow().id, this.context.getNode().id);
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

	/** Runs a run the queue prepared (it is in flight already), holding its key meanwhile. */
	runPrepared(key: string, prepared: () => Promise<RunOutcome>): Promise<RunOutcome> {
		const running = prepared().finally(() => this.ended(key));
		this.running.set(key, running);
		return running;
	}

	/** Runs the run in the next execution a place starts, and records how it ended. */
	async execute(prepared: PreparedRun): Promise<RunOutcome> {
		return await this.places.run(prepared);
	}

	/** Emits one execution whose items are these runs, and records how it ended for each. */
	private async executeTogether(preparedRuns: PreparedRun[]): Promise<RunOutcome[]> {
		const records = this.records();
		const runs = preparedRuns.map((prepared) => {
			const attempts = (records.inFlight.get(prepared.run.key)?.attempts ?? 0) + 1;
			return { ...prepared.run, attempts };
		});
		const items: INodeExecutionData[] = preparedRuns.map((prepared, index) => ({
			json: { ...prepared.json, ...this.runAgainMark(runs[index]) },
		}));
		const done = this.context.helpers.createDeferredPromise<IRun>();
		preparedRuns.forEach((prepared, index) => records.queued(runs[index], prepared.keep));
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
			preparedRuns.forEach((prepared, index) => after.notStarted(runs[index].key, prepared.keep));
			return preparedRuns.map(() => 'notStarted');
		}
		if (runs.length > 1 && executionFailed(run)) {
			// Which lead failed is not known: each stays in flight and runs again alone (the queue
			// takes it up again; a run again never shares), so only that lead stands failed.
			runs.forEach((failed) => this.failedTogether.add(failed.key));
			return preparedRuns.map(() => 'notStarted');
		}
		const after = this.records();
		// Refused (n8n ran this key before, and its finish was not saved): what that execution
		// showed is unknown, so only the event's own version counts as run; a later change is
		// the recovery's to find.
		preparedRuns.forEach((prepared, index) =>
			after.finished(runs[index], run ? prepared.version : eventVersion(runs[index])),
		);
		return preparedRuns.map(() => 'finished');
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

/**
 * How long the process memory of a node whose webhooks were deleted during its runs waits for
 * the trigger that replaces it, after its last run ended. n8n starts an updated workflow's
 * trigger right after it closed the old one; a deactivated node's memory goes after this.
 */
export const REPLACEMENT_WAIT = { ms: 60_000 };

const executors = new ProductionNodeMemories<RunExecutor>('runExecutors');

/** Forgets the nodes retired long enough ago (looked at whenever a node starts or is deleted). */
function forgetRetired(): void {
	const nowMs = Date.now();
	for (const executor of [...executors.values()])
		if (executor.retiredLongAgo(nowMs)) executor.forgetNode();
}

/** Makes this `trigger()` the one that runs the node's events in this process. */
export function registerRunExecutor(context: ITriggerFunctions): RunExecutor {
	forgetRetired();
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
	if (executor.underWay === 0 && !executor.isRetired) executor.unregister();
}

/**
 * n8n deleted the node's webhooks (an update or a deactivation; it closes the trigger after):
 * the node's process memory is forgotten, or, while its runs are under way, kept for the
 * trigger that replaces it (retire).
 */
export function forgetWhenDone(workflowId: string | undefined, nodeId: string): void {
	forgetRetired();
	const executor = executors.get(scopeOf(workflowId ?? '', nodeId, 'production'));
	if (executor && executor.underWay > 0) executor.retire();
	else forgetTriggerNode(workflowId, nodeId);
}

/** The executor of a trigger node in this process, if its `trigger()` runs here. */
export function runExecutorFor(scope: string): RunExecutor | undefined {
	const executor = executors.get(scope);
	return executor?.isClosed ? undefined : executor;
}
