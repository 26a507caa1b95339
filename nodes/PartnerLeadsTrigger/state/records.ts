import { createHash } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import type { LeadEvent } from '../../shared/leadItem';
import { isoTimeMs } from '../../shared/isoTime';
import {
	type EventAge,
	type EventMark,
	type Recall,
	eventMark,
	eventTimeSeconds,
	judgeEventAge,
	maxEventAgeSeconds,
	SeenEvents,
} from './seenEvents';
import type { KeptLead } from '../../shared/changes/fieldChanges';
import { fetchesFullLead, watchedFieldIds } from '../../shared/changes/watchedFields';
import { nodeScope } from '../../shared/state/nodeStore';
import type { LeadVersion } from '../../shared/changes/versions';
import type { LeadTopic } from '../../shared/topics';
import { RecoveryLedger } from './recoveryLedger';
import { type WatchedRecord, packKeptLead, unpackKeptLead, WatchedLeads } from './watchedLeads';
import { type InFlightRun, eventVersion, MAX_IN_FLIGHT, RunsInFlight } from './runsInFlight';

/**
 * The one door into what the trigger remembers for the delivery's stages (delivery/, runs/):
 * they import nothing else from state/ (test/source/delivery-walk.test.ts checks it).
 */

export type { InFlightRun } from './runsInFlight';
export { DEFAULT_MAX_EVENT_AGE_HOURS, deliveriesInProgress } from './seenEvents';

/** A delivered event as the records know it. */
export type RecordedAs = Recall | 'ranByRecovery' | 'interrupted';

/** A run as it was judged before it starts (runs/prepare.ts): what it keeps, the version it runs. */
export interface JudgedRun {
	/** the run, carrying the watched values it replaces (so its run again shows the same `from`) */
	run: InFlightRun;
	/** recorded as run once it finished; without it, the event's own version (not read) */
	version?: LeadVersion;
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
		/** Ignore Events Older Than, in seconds */
		readonly maxAgeSeconds: number,
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

	/** Past MAX_IN_FLIGHT runs in flight, deliveries are asked to come back later. */
	isFull(): boolean {
		return this.inFlight.size >= MAX_IN_FLIGHT;
	}

	/** Whether a run finished since the stored copy was written: a save would record it. */
	get savesPending(): boolean {
		return this.inFlight.storedIsStale;
	}

	get inFlightCount(): number {
		return this.inFlight.size;
	}

	/** The runs in flight, oldest first. */
	runsInFlight(): InFlightRun[] {
		return this.inFlight.all();
	}

	/** How often the run of this key started; 0 when it is not in flight or not started. */
	attemptsOf(key: string): number {
		return this.inFlight.get(key)?.attempts ?? 0;
	}

	/** A run given up (interrupted too often): it leaves the runs in flight. */
	giveUp(key: string): void {
		this.inFlight.finish(key);
	}

	/** Whether a recovery ran this lead at the version read, after the event's time (a late retry). */
	recoveredAlready(leadId: string, eventMs: number, updatedMs: number): boolean {
		return this.ledger.mayBeRecovered(leadId, eventMs) && this.ledger.hasRun(leadId, updatedMs);
	}

	/**
	 * A run is in flight (accepted or found missing), or started: its watched values are kept, and
	 * those they replace go with the run, so its run again shows the same `from`.
	 */
	queued(run: InFlightRun, watch?: WatchedRecord): void {
		this.inFlight.start(watch ? { ...run, watchedBefore: packKeptLead(watch.before) } : run);
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

	/**
	 * A run the webhook starts itself (a queue-mode webhook process): counted as run, its values
	 * kept; the runs in flight are the leader's and stay as they are.
	 */
	ranFromWebhook(prepared: JudgedRun): void {
		this.keepWatchedValues(prepared);
		this.countAsRun(prepared.run, prepared.version ?? eventVersion(prepared.run));
	}

	/** Keeps or drops the lead's watched values as the run was judged, now. */
	private keepWatchedValues({ run, keep, drop }: JudgedRun): void {
		if (keep) this.watched.record(run.leadId, keep.kept);
		else if (drop) this.watched.drop(run.leadId);
	}

	/** n8n did not start the run: it leaves the runs in flight, the values before come back. */
	notStarted(key: string, watch: WatchedRecord | undefined): void {
		this.inFlight.finish(key);
		if (watch) this.watched.restore(watch);
	}

	/** A run's execution finished: it leaves the runs in flight and counts as run. */
	finished(run: InFlightRun, version: LeadVersion = eventVersion(run)): void {
		this.countAsRun(run, version);
		this.inFlight.finish(run.key);
	}

	/** Events seen, the ledger's version, the watched values of a deleted lead dropped. */
	private countAsRun(run: InFlightRun, version: LeadVersion): void {
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
	}

	/** Writes every store into the node's static data, to be saved whole by n8n. */
	writeBack(): void {
		this.inFlight.save();
		this.seen.writeBack();
		this.ledger.save();
		this.watched.save();
	}
}

type NodeContext = IHookFunctions | ITriggerFunctions | IWebhookFunctions;

function maxAgeSecondsOf(context: NodeContext): number {
	const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	return maxEventAgeSeconds(options.maxEventAgeHours);
}

/** The node's production records on the static data of this context's workflow. */
export function openRunRecords(context: NodeContext): RunRecords {
	return new RunRecords(
		context.getWorkflowStaticData('node'),
		nodeScope(context),
		maxAgeSecondsOf(context),
		watchedFieldIds(context),
	);
}

/** What the records know of a delivered event, and the run it asks for (a first run). */
export interface RecalledEvent {
	known: RecordedAs;
	/** the event as a run, keyed by its mark (the service's dedup key, hashed) */
	run: InFlightRun;
	/** production's records, opened once for this delivery; none for the editor's test event */
	records?: RunRecords;
	/** claims the event for this delivery: false while another delivery of it is under way */
	claim(): boolean;
	release(): void;
}

/** An event time outside Ignore Events Older Than (a possible replay), or what the records know. */
export function recallDelivery(
	context: IWebhookFunctions,
	event: LeadEvent,
): RecalledEvent | { known: Exclude<EventAge['verdict'], 'inWindow'> } {
	const records = context.getMode() === 'manual' ? undefined : openRunRecords(context);
	const maxAgeSeconds = records?.maxAgeSeconds ?? maxAgeSecondsOf(context);
	const age = judgeEventAge(event.timestamp, maxAgeSeconds);
	if (age.verdict !== 'inWindow') return { known: age.verdict };
	const mark = eventMark(event, age.timeSeconds);
	const eventMs = isoTimeMs(event.timestamp) ?? age.timeSeconds * 1000;
	// the editor's test event is known only to the test URL's events seen
	const seen =
		records?.seen ??
		new SeenEvents(context.getWorkflowStaticData('node'), nodeScope(context, 'test'), {
			maxAgeSeconds,
		});
	const known = records
		? records.recall(event, mark, eventMs, fetchesFullLead(context))
		: seen.recall(mark);
	const run: InFlightRun = {
		...{ key: mark.key, topic: event.topic, leadId: event.id, timestamp: event.timestamp },
		...{ attempts: 0, origin: 'delivered' },
	};
	return {
		...{ known, run, records },
		claim: () => seen.claim(mark.key),
		release: () => seen.release(mark.key),
	};
}

/**
 * What Fields to Watch kept of the run's lead, or undefined when no field is watched. A run again
 * is judged against what its first run saw; the editor's test event reads a copy of production's.
 */
export function keptBefore(
	context: IWebhookFunctions | ITriggerFunctions,
	records: RunRecords | undefined,
	run: InFlightRun,
	fields: readonly string[],
): { known: KeptLead | undefined } | undefined {
	const watched =
		records?.watched ?? new WatchedLeads(context.getWorkflowStaticData('node'), undefined, fields);
	if (!watched.watching) return undefined;
	return { known: run.attempts > 0 ? unpackKeptLead(run.watchedBefore) : watched.kept(run.leadId) };
}
