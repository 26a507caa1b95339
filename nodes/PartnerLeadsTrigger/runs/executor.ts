import type { IDataObject, IRun, ITriggerFunctions } from 'n8n-workflow';

import { maxEventAgeSeconds } from '../eventAge';
import { registerNodeMemory } from '../processMemory';
import type { LeadVersion } from '../../shared/changes/versions';
import { productionScope } from '../scope';
import type { WatchedRecord } from '../watchedLeads';
import type { InFlightRun } from './inFlight';
import { MAX_IN_FLIGHT } from './inFlight';
import { RunRecords } from './records';

/**
 * Runs started through the trigger's own `trigger()`, where n8n says when each execution has
 * finished (emit's done promise; a webhook never learns it). `trigger()` lives in the process
 * that runs triggers: the one main process, or the leader in queue mode. A delivery reaching
 * that process hands its event here and waits for the execution to finish before it answers,
 * so the service's 200 always follows a finished execution saved as run; a hard kill before
 * that leaves the run in flight in static data, and it runs again (marked) when n8n is back.
 */

/** How the trigger marks a run of an event it ran before: its execution was interrupted. */
export const RERUN_MARK = { recovered: true, recoveryReason: 'interrupted' } as const;

export type RunOutcome = 'finished' | 'notStarted' | 'busy';

export interface RunRequest {
	run: Omit<InFlightRun, 'attempts'>;
	/** the item, as a first run gives it */
	json: IDataObject;
	/** recorded as run once the execution finished */
	version: LeadVersion;
	/** a run again of one left in flight: nothing to do once that finished meanwhile */
	onlyIfInFlight?: boolean;
	/** the lead's watched values, kept from the start of the run */
	watch?: WatchedRecord;
}

export class RunExecutor {
	private readonly running = new Map<string, Promise<RunOutcome>>();

	private readonly maxAgeSeconds: number;

	constructor(private readonly context: ITriggerFunctions) {
		const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
		this.maxAgeSeconds = maxEventAgeSeconds(options.maxEventAgeHours);
	}

	get scope(): string {
		return productionScope(this.context);
	}

	/** The records, read through the static data of `trigger()`'s workflow (which emit saves). */
	records(): RunRecords {
		return new RunRecords(
			this.context.getWorkflowStaticData('node'),
			this.scope,
			this.maxAgeSeconds,
		);
	}

	/** The run of this key if it is under way here. */
	joined(key: string): Promise<RunOutcome> | undefined {
		return this.running.get(key);
	}

	/**
	 * Starts the run, or joins the one of the same key under way. A run that was in flight
	 * before (n8n stopped while it ran) runs again, marked: it may have run in part or in full.
	 */
	async start(request: RunRequest): Promise<RunOutcome> {
		const key = request.run.key;
		const underWay = this.running.get(key);
		if (underWay) return await underWay;
		const records = this.records();
		const inFlight = records.inFlight.get(key);
		if (!inFlight && request.onlyIfInFlight) return 'finished';
		if (!inFlight && records.inFlight.size >= MAX_IN_FLIGHT) return 'busy';
		const running = this.execute(records, request).finally(() => this.running.delete(key));
		this.running.set(key, running);
		return await running;
	}

	private async execute(records: RunRecords, request: RunRequest): Promise<RunOutcome> {
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

const executors = new Map<string, RunExecutor>();

registerNodeMemory('runExecutors', {
	get size() {
		return executors.size;
	},
	forget: (workflowId, nodeId) => executors.delete(`${workflowId}:${nodeId}:production`),
});

/** Makes this `trigger()` the one that runs the node's events in this process. */
export function registerRunExecutor(context: ITriggerFunctions): RunExecutor {
	const executor = new RunExecutor(context);
	executors.set(executor.scope, executor);
	return executor;
}

/** Stops handing events to this executor (the trigger closes); runs under way still finish. */
export function unregisterRunExecutor(executor: RunExecutor): void {
	if (executors.get(executor.scope) === executor) executors.delete(executor.scope);
}

/** The executor of a trigger node in this process, if its `trigger()` runs here. */
export function runExecutorFor(scope: string): RunExecutor | undefined {
	return executors.get(scope);
}
