import { type ITriggerFunctions, sleep } from 'n8n-workflow';

import type { InFlightRun, RunRecords } from '../state/records';
import { type ExecutionPlaces, type RunOutcome, LEAD_READS_AT_ONCE } from './places';
import { type PreparedRun, prepareRun } from './prepare';

/** Runs waiting here, oldest first, one per lead at a time, so a lead's events run in order. */

/** Interrupted this often, a run is given up (logged), so it cannot crash n8n forever. */
export const MAX_RUN_ATTEMPTS = 3;

/** Waits before a run whose preparation failed is tried again: doubling, up to a minute. */
export const PREPARE_RETRY = { firstMs: 2_000, maxMs: 60_000 };

/** What the queue asks of the trigger's executor (executor.ts), which owns the queue. */
export interface QueueExecutor {
	readonly places: ExecutionPlaces<PreparedRun>;
	readonly underWay: number;
	records(): RunRecords;
	joined(key: string): Promise<RunOutcome> | undefined;
	previousRunsLead(leadId: string): boolean;
	runPrepared(key: string, prepared: () => Promise<RunOutcome>): Promise<RunOutcome>;
}

export class RunQueue {
	private closing = new AbortController();

	private wakeQueued = false;

	private active = 0;

	/** runs taken up whose lead is being read (at most LEAD_READS_AT_ONCE) */
	private reading = 0;

	private readonly leadsUnderWay = new Set<string>();

	/** accepted by a delivery whose answer (after n8n's save) has not gone out yet */
	private readonly unsaved = new Set<string>();

	private readonly retries = new Map<string, { failures: number; dueMs: number }>();

	private retryWakeMs = Infinity;

	/** deliveries waiting for the run they started (webhook.ts) */
	private held = 0;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly executor: QueueExecutor,
	) {}

	/** Looks for runs to take up, once the code running now is done. */
	wake(): void {
		if (this.closing.signal.aborted || this.wakeQueued) return;
		this.wakeQueued = true;
		void Promise.resolve().then(() => {
			this.wakeQueued = false;
			this.takeUp();
		});
	}

	close(): void {
		this.closing.abort();
	}

	/** Takes up this run now if nothing waits before it and n8n is not busy, else undefined. */
	takeUpNow(run: InFlightRun): Promise<RunOutcome> | undefined {
		if (this.closing.signal.aborted || !this.mayTakeUp()) return undefined;
		if (this.active >= this.executor.places.holdsBelow) return undefined;
		if (this.underWay(run)) return undefined;
		const waiting = this.executor.records().inFlightCount - this.executor.underWay;
		if (waiting > 1) return undefined;
		this.take(run);
		return this.executor.joined(run.key);
	}

	/** A delivery waits for its run; the last one still waiting (!othersHeld) saves for all. */
	async whileHeld<T>(wait: Promise<T>): Promise<{ outcome: T; othersHeld: boolean }> {
		this.held++;
		try {
			const outcome = await wait;
			return { outcome, othersHeld: this.held > 1 };
		} finally {
			this.held--;
		}
	}

	/** Whether runs are on their way to a place: leads being read, runs in flight not taken up. */
	moreComing(): boolean {
		return this.reading > 0 || this.executor.records().inFlightCount > this.executor.underWay;
	}

	/** A delivery accepted this run: it is taken up only once n8n saved it and answered. */
	holdUntilSaved(key: string): () => void {
		this.unsaved.add(key);
		return () => {
			this.unsaved.delete(key);
			this.wake();
		};
	}

	private takeUp(): void {
		if (this.closing.signal.aborted) return;
		const nowMs = Date.now();
		let nextDueMs = Infinity;
		for (const run of this.executor.records().runsInFlight()) {
			if (!this.mayTakeUp()) return;
			if (this.underWay(run)) continue;
			if (this.unsaved.has(run.key)) continue;
			const dueMs = this.retries.get(run.key)?.dueMs ?? 0;
			if (dueMs > nowMs) {
				nextDueMs = Math.min(nextDueMs, dueMs);
				continue;
			}
			this.take(run);
		}
		if (nextDueMs < Infinity) this.wakeAt(nextDueMs);
	}

	private doneReading(): void {
		this.reading--;
		this.wake();
	}

	/** Whether an event of this lead is taken up here (read, waiting for a place or executing). */
	runsLead(leadId: string): boolean {
		return this.leadsUnderWay.has(leadId);
	}

	/** The run, or another of its lead, is under way: it waits (a lead's events run in order). */
	private underWay(run: InFlightRun): boolean {
		if (this.leadsUnderWay.has(run.leadId) || this.executor.joined(run.key)) return true;
		return this.executor.previousRunsLead(run.leadId);
	}

	private mayTakeUp(): boolean {
		return this.active < this.executor.places.runsAtOnce && this.reading < LEAD_READS_AT_ONCE;
	}

	private wakeAt(dueMs: number): void {
		if (dueMs >= this.retryWakeMs) return;
		this.retryWakeMs = dueMs;
		void sleep(Math.max(0, dueMs - Date.now()), this.closing.signal)
			.catch(() => undefined)
			.then(() => {
				if (this.retryWakeMs === dueMs) this.retryWakeMs = Infinity;
				this.wake();
			});
	}

	private take(run: InFlightRun): void {
		this.active++;
		this.reading++;
		this.leadsUnderWay.add(run.leadId);
		void this.executor
			.runPrepared(run.key, async () => await this.run(run))
			.finally(() => {
				this.active--;
				this.leadsUnderWay.delete(run.leadId);
				this.wake();
			});
	}

	private async run(run: InFlightRun): Promise<RunOutcome> {
		if (run.attempts >= MAX_RUN_ATTEMPTS) {
			this.doneReading();
			this.giveUp(run);
			return 'finished';
		}
		let prepared;
		try {
			// A longer 429 wait would hold a place other runs could use: the run waits in the queue.
			const read = { rateLimitBudgetMs: 5_000 };
			prepared = await prepareRun(this.context, run, { records: this.executor.records(), read });
		} catch (error) {
			this.retryLater(run, error as Error);
			return 'notStarted';
		} finally {
			this.doneReading();
		}
		this.retries.delete(run.key);
		if (!prepared.start) {
			// after the read: the newest trigger's records (a workflow update may have come)
			this.executor.records().doneWithoutRun(prepared);
			return 'finished';
		}
		return await this.executor.places.run(prepared);
	}

	private retryLater(run: InFlightRun, error: Error): void {
		const failures = (this.retries.get(run.key)?.failures ?? 0) + 1;
		const waitMs = Math.min(PREPARE_RETRY.maxMs, PREPARE_RETRY.firstMs * 2 ** (failures - 1));
		this.retries.set(run.key, { failures, dueMs: Date.now() + waitMs });
		this.context.logger.warn(
			`Partner Referral Service Trigger could not read lead ${run.leadId} for its ${run.topic} event, trying again in ${Math.round(waitMs / 1000)} s: ${error.message}`,
			{ node: this.context.getNode().name, topic: run.topic },
		);
	}

	private giveUp(run: InFlightRun): void {
		this.executor.records().giveUp(run.key);
		this.context.logger.error(
			`Partner Referral Service Trigger gave up an event: its run was interrupted ${run.attempts} times (n8n stopped while it ran each time, e.g. out of memory). Lead ${run.leadId}, ${run.topic} at ${run.timestamp}: run it by hand if it matters.`,
			{ node: this.context.getNode().name, topic: run.topic },
		);
	}
}
