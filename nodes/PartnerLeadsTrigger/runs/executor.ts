import { createHash } from 'crypto';
import type { IDataObject, INodeExecutionData, IRun, ITriggerFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { forgetTriggerNode } from '../../shared/state/processMemory';
import { ProductionNodeMemories } from '../../shared/state/nodeStore';
import {
	type InFlightRun,
	type RunRecords,
	deliveriesInProgress,
	openRunRecords,
} from '../state/records';
import type { PreparedRun } from './prepare';
import { RunQueue } from './queue';
import { type RunOutcome, ExecutionPlaces, leadsPerExecution, RUN_CONCURRENCY } from './places';

/**
 * Runs from `trigger()`, where n8n reports when each execution ends (a webhook never learns
 * it). After a hard kill, runs not started run when n8n is back; started ones run again, marked.
 */

/** How the trigger marks a run of an event it ran before: its execution was interrupted. */
export const RERUN_MARK = { recovered: true, recoveryReason: 'interrupted' } as const;

/** Marks an event accepted before the workflow was unpublished, run once it is published again. */
export const PUBLISHED_AGAIN_MARK = { recovered: true, recoveryReason: 'publishedAgain' } as const;

/** Marks a lead run again alone because the execution it shared with other leads failed. */
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

	readonly queue: RunQueue;

	readonly places: ExecutionPlaces<PreparedRun>;

	/** the closed executor of the trigger this one replaced (a workflow updated), while it runs */
	private previous?: RunExecutor;

	/** the executor that replaced this one once closed: runs still under way record there */
	private successor?: RunExecutor;

	closed = false;

	/** n8n deleted the node's webhooks while runs were under way (see retire) */
	retired = false;

	private lastEndedMs = 0;

	/** this trigger's records, on the static data n8n saves with each emit */
	private readonly ownRecords: RunRecords;

	/** whose runs: the production trigger node (nodeStore.ts) */
	readonly scope: string;

	constructor(
		private readonly context: ITriggerFunctions,
		/** the production webhook URL it was subscribed with (state/sealedSubscriptions.ts) */
		readonly webhookUrl: string | undefined,
	) {
		const options = context.getNodeParameter('options', {}) as { leadsPerExecution?: number };
		this.ownRecords = openRunRecords(context);
		this.scope = this.ownRecords.scope;
		this.queue = new RunQueue(context, this);
		this.places = new ExecutionPlaces(
			RUN_CONCURRENCY.runs,
			leadsPerExecution(options.leadsPerExecution),
			async (preparedRuns) => await this.executeTogether(preparedRuns),
			(prepared) => ({
				leadId: prepared.run.leadId,
				mayShare:
					prepared.run.origin === 'delivered' && this.records().attemptsOf(prepared.run.key) === 0,
			}),
			() => this.queue.wake(),
			() => this.queue.moreComing(),
		);
	}

	/** Records in the newest trigger's static data, so a run ending after an update is saved. */
	records(): RunRecords {
		return this.newest().ownRecords;
	}

	private newest(): RunExecutor {
		return this.successor?.newest() ?? this;
	}

	/**
	 * Replaces a closed trigger of the same node (workflow updated). Its runs still under way are
	 * joined, not run again, and record their end here (its memory was kept by forgetWhenDone).
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
		this.successor?.queue.wake();
		if (this.closed && this.underWay === 0 && !this.retired) this.unregister();
	}

	/** Webhooks deleted while runs were under way: memory kept until replaced or REPLACEMENT_WAIT. */
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

	/** Stops starting runs; executions under way finish, runs not started stay in flight. */
	close(): void {
		this.closed = true;
		this.stopStarting();
	}

	/** Starts no more runs; deliveries are still accepted, their runs kept in flight. */
	stopStarting(): void {
		this.queue.close();
		this.places.close();
	}

	/** Runs a run the queue prepared (it is in flight already), holding its key meanwhile. */
	runPrepared(key: string, prepared: () => Promise<RunOutcome>): Promise<RunOutcome> {
		const running = prepared().finally(() => this.ended(key));
		this.running.set(key, running);
		return running;
	}

	/** Emits one execution whose items are these runs, and records how it ended for each. */
	private async executeTogether(preparedRuns: PreparedRun[]): Promise<RunOutcome[]> {
		const records = this.records();
		const runs = preparedRuns.map((prepared) => {
			const attempts = records.attemptsOf(prepared.run.key) + 1;
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
			// Which lead failed is unknown: each runs again alone, so only that lead fails.
			runs.forEach((failed) => this.failedTogether.add(failed.key));
			return preparedRuns.map(() => 'notStarted');
		}
		const after = this.records();
		// Refused (n8n ran this key, finish not saved): only the event's own version counts as
		// run; recovery finds any later change.
		preparedRuns.forEach((prepared, index) =>
			after.finished(runs[index], run ? prepared.version : undefined),
		);
		return preparedRuns.map(() => 'finished');
	}

	/** The mark of a run again (its shared execution failed, or it was interrupted) or held over. */
	private runAgainMark(run: InFlightRun): IDataObject {
		if (this.failedTogether.delete(run.key)) return SHARED_EXECUTION_FAILED_MARK;
		if (run.attempts > 1) return RERUN_MARK;
		return run.acceptedBeforeUnpublish ? PUBLISHED_AGAIN_MARK : {};
	}

	/**
	 * n8n 2.20+ keeps one execution per key (older versions ignore it), so a run whose finish was
	 * not saved before n8n stopped is not started twice. A delivered event's first run and its runs
	 * again get different keys; a recovered event keeps one key (it more likely finished than was
	 * interrupted). A shared execution hashes all its keys, so it only matches the same group.
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

/** How long a retired node's memory waits, after its last run, for a replacing trigger. */
export const REPLACEMENT_WAIT = { ms: 60_000 };

const executors = new ProductionNodeMemories<RunExecutor>('runExecutors');

/** Forgets the nodes retired long enough ago (looked at whenever a node starts or is deleted). */
function forgetRetired(): void {
	const nowMs = Date.now();
	for (const executor of [...executors.values()])
		if (executor.retiredLongAgo(nowMs)) executor.forgetNode();
}

/** Makes this `trigger()` the one that runs the node's events in this process. */
export function registerRunExecutor(
	context: ITriggerFunctions,
	webhookUrl: string | undefined,
): RunExecutor {
	forgetRetired();
	const executor = new RunExecutor(context, webhookUrl);
	const previous = executors.get(executor.scope);
	if (previous?.closed) executor.takeOver(previous);
	executors.set(executor.scope, executor);
	return executor;
}

/** Stops handing events here; stays known while runs finish, for a replacing trigger. */
export function unregisterRunExecutor(executor: RunExecutor): void {
	executor.close();
	if (executor.underWay === 0 && !executor.retired) executor.unregister();
}

/**
 * How long unpublishing waits for the executions under way, so their end is saved with the
 * unpublish and none runs again at the next publish. One still running then stays in flight.
 */
export const UNPUBLISH_WAIT = { ms: 30_000, pollMs: 50 };

/**
 * n8n is about to delete the node's webhooks at `webhookUrl` (unpublished, or a new version
 * published); not those of the editor's "listen for test event", which leave the trigger running.
 * Whether the executions of the node were stopped here.
 */
export function stopRunsForUnpublish(scope: string, webhookUrl: string): boolean {
	const executor = executors.get(scope);
	if (!executor || executor.webhookUrl !== webhookUrl) return false;
	executor.stopStarting();
	return true;
}

/**
 * Waits, up to UNPUBLISH_WAIT, until no execution of the node is under way in this process and no
 * delivery is being handled, so their ends are saved with the unpublish (records.ts writeBack).
 * A run still reading its lead starts nothing now: it stays in flight.
 */
export async function runsSettled(scope: string): Promise<void> {
	const executor = executors.get(scope);
	const deadline = Date.now() + UNPUBLISH_WAIT.ms;
	const busy = () => (executor?.places.executing ?? 0) > 0 || deliveriesInProgress(scope) > 0;
	while (busy() && Date.now() < deadline) await sleep(UNPUBLISH_WAIT.pollMs);
}

/** n8n deleted the webhooks: forget the node's memory, or retire it while runs are under way. */
export function forgetWhenDone(workflowId: string | undefined, nodeId: string): void {
	forgetRetired();
	const executor = executors.ofNode(workflowId ?? '', nodeId);
	if (executor && executor.underWay > 0) executor.retire();
	else forgetTriggerNode(workflowId, nodeId);
}

/** The executor of a trigger node in this process, if its `trigger()` runs here. */
export function runExecutorFor(scope: string): RunExecutor | undefined {
	const executor = executors.get(scope);
	return executor?.closed ? undefined : executor;
}
