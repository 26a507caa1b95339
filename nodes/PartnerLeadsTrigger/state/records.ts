import { createHash } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import {
	type EventMark,
	type Recall,
	eventMark,
	eventTimeSeconds,
	maxEventAgeSeconds,
	SeenEvents,
} from './seenEvents';
import { watchedFieldIds } from '../../shared/changes/watchedFields';
import { nodeScope } from '../../shared/state/nodeStore';
import type { LeadVersion } from '../../shared/changes/versions';
import type { LeadTopic } from '../../shared/topics';
import { RecoveryLedger } from './recoveryLedger';
import { type WatchedRecord, WatchedLeads } from './watchedLeads';
import { type InFlightRun, RunsInFlight } from './runsInFlight';

/** A delivered event as the records know it. */
export type RecordedAs = Recall | 'ranByRecovery' | 'interrupted';

/** A run as it was judged before it starts (runs/prepare.ts): what it keeps, the version it runs. */
export interface JudgedRun {
	/** the run, carrying the watched values it replaces (so its run again shows the same `from`) */
	run: InFlightRun;
	/** recorded as run once it finished */
	version: LeadVersion;
	/** the lead's watched values to keep from the start of the run, and those they replace */
	keep?: WatchedRecord;
	/** the lead is gone: its watched values are dropped */
	drop?: boolean;
}

/**
 * What the trigger records about its runs in static data, opened once per delivery and once per
 * trigger activation. Each store merges the stored copy into memory and writes the union back, so
 * any writer (emit, a delivery) saves all of it.
 */
export class RunRecords {
	readonly inFlight: RunsInFlight;

	readonly seen: SeenEvents;

	readonly ledger: RecoveryLedger;

	readonly watched: WatchedLeads;

	constructor(
		nodeData: IDataObject,
		readonly scope: string,
		maxAgeSeconds: number,
		/** the node's watched field ids */
		watchedFields: readonly string[],
	) {
		this.inFlight = new RunsInFlight(nodeData, scope);
		this.seen = new SeenEvents(nodeData, scope, { maxAgeSeconds });
		this.ledger = new RecoveryLedger(nodeData, scope, { maxAgeSeconds });
		this.watched = new WatchedLeads(nodeData, scope, watchedFields);
	}

	/**
	 * What the records know of a delivered event, asked in this order: a recovery ran it already;
	 * its run was in flight when n8n stopped (it runs again); then the events seen.
	 */
	recall(event: LeadEvent, mark: EventMark, eventMs: number, fetchFullLead: boolean): RecordedAs {
		if (this.ranByRecovery(event, eventMs, fetchFullLead)) return 'ranByRecovery';
		if (this.inFlight.get(mark.key) !== undefined) return 'interrupted';
		return this.seen.recall(mark);
	}

	/**
	 * A lead is deleted once; an update may be the service's late retry of a recovered change
	 * (without updatedAt, the event time decides).
	 */
	private ranByRecovery(event: LeadEvent, eventMs: number, fetchFullLead: boolean): boolean {
		if (event.topic === 'lead/delete') return this.ledger.hasDeleted(event.id);
		// with the lead fetched, its updatedAt decides exactly when the run is prepared
		return !fetchFullLead && this.ledger.mayBeRecovered(event.id, eventMs);
	}

	/** A run is in flight (accepted or found missing), or started: its watched values are kept. */
	queued(run: InFlightRun, watch?: WatchedRecord): void {
		this.inFlight.start(run);
		if (watch) this.watched.record(watch.leadId, watch.kept);
	}

	/** A missed event a listing found: in flight under a key hashed from `keyText`. */
	recovered(keyText: string, topic: LeadTopic, leadId: string, timestamp: string): void {
		const key = createHash('sha256').update(keyText).digest('hex').slice(0, 16);
		this.queued({ key, topic, leadId, timestamp, attempts: 0, origin: 'recovered' });
	}

	/** A run that starts nothing after all: its values are kept and it counts as run. */
	doneWithoutRun(prepared: JudgedRun): void {
		this.keepWatchedValues(prepared);
		this.finished(prepared.run, prepared.version);
	}

	/** Keeps or drops the lead's watched values as the run was judged, now. */
	keepWatchedValues({ run, keep, drop }: JudgedRun): void {
		if (keep) this.watched.record(run.leadId, keep.kept);
		else if (drop) this.watched.drop(run.leadId);
	}

	/** n8n did not start the run: it leaves the runs in flight, the values before come back. */
	notStarted(key: string, watch: WatchedRecord | undefined): void {
		this.inFlight.finish(key);
		if (watch) this.watched.restore(watch);
	}

	/** A run's execution finished: it leaves the runs in flight and counts as run. */
	finished(run: InFlightRun, version: LeadVersion): void {
		if (run.origin === 'delivered') {
			const seconds = eventTimeSeconds(run.timestamp);
			if (seconds !== undefined)
				this.seen.remember(
					eventMark({ id: run.leadId, topic: run.topic, timestamp: run.timestamp }, seconds),
				);
		}
		if (run.topic === 'lead/delete') this.ledger.recordDeleted(run.leadId, version.ms);
		else if (run.origin === 'delivered') this.ledger.recordDelivered(run.leadId, version);
		else this.ledger.recordRecovered(run.leadId, version.ms);
		if (run.topic === 'lead/delete') this.watched.drop(run.leadId);
		this.inFlight.finish(run.key);
	}

	/** Writes every store into the node's static data, to be saved whole by n8n. */
	writeBack(): void {
		this.inFlight.save();
		this.seen.writeBack();
		this.ledger.save();
		this.watched.save();
	}
}

/** The node's production records on the static data of this context's workflow. */
export function openRunRecords(
	context: IHookFunctions | ITriggerFunctions | IWebhookFunctions,
): RunRecords {
	const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	return new RunRecords(
		context.getWorkflowStaticData('node'),
		nodeScope(context),
		maxEventAgeSeconds(options.maxEventAgeHours),
		watchedFieldIds(context),
	);
}
