import type { ITriggerFunctions } from 'n8n-workflow';

import type { KnownChanges, LeadChange } from '../../shared/changes/judge';
import { baselineOf, judgeListing } from '../../shared/changes/judge';
import type { ListedLead } from '../../shared/changes/listedLead';
import { listLeads } from '../../shared/changes/listing';
import { observedTopics, watchSettingsOf } from '../../shared/changes/watchedFields';
import { selectedTopics } from '../../shared/topics';
import { maxEventAgeSeconds } from '../state/seenEvents';
import type { RunExecutor } from '../runs/executor';
import { type RunRecords, openRunRecords } from '../state/records';
import type { RunsInFlight } from '../state/runsInFlight';
import { nodeScope, ProductionNodeMemories, savingOnceAfter } from '../../shared/state/nodeStore';
import { watchedLeadsOf } from '../state/watchedLeads';
import { RecoveryLedger } from '../state/recoveryLedger';
import { keepListedIds, listingOf, recoverDeletes } from './deletes';
import { type FollowUps, RECOVERY_TIMING } from './timing';

/** One recovery: lists all leads and hands each missed change to the run queue (runs/queue.ts). */

export interface RecoveryOutcome {
	/** missed events handed to the run queue */
	recovered: number;
	/** leads changed too recently to judge yet: a follow-up check is due */
	deferred: number;
	listRequests: number;
}

export function openLedger(context: ITriggerFunctions): RecoveryLedger {
	const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	return new RecoveryLedger(context.getWorkflowStaticData('node'), nodeScope(context), {
		maxAgeSeconds: maxEventAgeSeconds(options.maxEventAgeHours),
	});
}

/** Recent changes may still arrive as deliveries: each waits a settle from its first listing. */
const firstListed = new ProductionNodeMemories<FollowUps>('recoveryFollowUps');

function followUpsOf(context: ITriggerFunctions): FollowUps {
	const scope = nodeScope(context);
	const followUps = firstListed.get(scope) ?? { changes: new Map(), gone: new Map() };
	firstListed.set(scope, followUps);
	return followUps;
}

/** Whether the leads are to be listed for a baseline: of a new activation, or of new watched fields. */
export function baselineDue(context: ITriggerFunctions): boolean {
	return openLedger(context).baselineDue || watchedLeadsOf(context).baselineDue;
}

/** Lists the leads and takes the baseline of a new activation, if it is due. */
export async function takeBaselineIfDue(
	this: ITriggerFunctions,
	stopped: () => boolean = () => false,
): Promise<RecoveryOutcome> {
	const outcome: RecoveryOutcome = { recovered: 0, deferred: 0, listRequests: 0 };
	if (!baselineDue(this)) return outcome;
	const listing = await listLeads(this, { stopped });
	outcome.listRequests = listing.requests;
	if (listing.stopped || stopped()) return outcome;
	// the watched fields' values of every lead: a new activation, or fields newly watched; a lead
	// with a run in flight (held over an unpublish) keeps those it will be judged against
	const inFlight = new Set(
		openRunRecords(this)
			.inFlight.all()
			.map((run) => run.leadId),
	);
	watchedLeadsOf(this).takeBaseline(listing.leads.filter((listed) => !inFlight.has(listed.id)));
	const baselineLedger = openLedger(this);
	if (!baselineLedger.baselineDue) return outcome;
	// a new activation's leads never run: listening starts a settle below the newest listed
	const { sinceMs, present } = baselineOf(listing.leads, RECOVERY_TIMING.settleMs);
	baselineLedger.takeBaseline(sinceMs, present);
	const topics = selectedTopics(this.getNodeParameter('events', []));
	const kept = topics.includes('lead/delete') ? listingOf(listing.leads) : undefined;
	keepListedIds(this, baselineLedger, kept);
	return outcome;
}

/** What the ledger knows; a run in flight counts as run for its version (it will run). */
function knownTo(ledger: RecoveryLedger, inFlight: RunsInFlight): KnownChanges {
	return {
		sinceMs: ledger.since,
		judgedUpToMs: ledger.recoverAfterMs,
		hasRun: (id, version) => ledger.hasRun(id, version) || inFlight.coversVersion(id, version),
		knows: (id) => ledger.knows(id) || inFlight.hasLead(id),
	};
}

/** Changes of the selected topics to start now, except recent ones not yet settled. */
function readyChanges(
	context: ITriggerFunctions,
	changes: LeadChange[],
	upToMs: number,
	outcome: RecoveryOutcome,
): LeadChange[] {
	// with watched fields, creations not chosen are judged too: their values are kept
	const watching = watchSettingsOf(context).fields.length > 0;
	const topics = observedTopics(selectedTopics(context.getNodeParameter('events', [])), watching);
	const followUps = followUpsOf(context);
	const waiting = followUps.changes;
	const stillWaiting = new Map<string, number>();
	const nowMs = Date.now();
	const ready: LeadChange[] = [];
	for (const change of changes) {
		if (change.version > upToMs) {
			const key = `${change.id} ${change.version}`;
			const seenMs = waiting.get(key) ?? nowMs;
			if (nowMs - seenMs < RECOVERY_TIMING.settleMs) {
				outcome.deferred++;
				stillWaiting.set(key, seenMs);
				continue;
			}
		}
		if (topics.includes(change.topic)) ready.push(change);
	}
	followUps.changes = stillWaiting;
	return ready;
}

/** Hands missed creates and updates to the run queue; `since` rises to a settle below newest. */
function recoverChanges(
	context: ITriggerFunctions,
	records: RunRecords,
	listed: ListedLead[],
	outcome: RecoveryOutcome,
): void {
	const { ledger, inFlight } = records;
	// Judged in the service's time only: its clock and n8n's may disagree by any amount.
	const { changes, newestMs } = judgeListing(listed, knownTo(ledger, inFlight));
	if (newestMs === undefined) return;
	const upToMs = newestMs - RECOVERY_TIMING.settleMs;
	for (const change of readyChanges(context, changes, upToMs, outcome)) {
		// never found missing again: its run is in flight until it finished
		ledger.recordRecovered(change.id, change.version);
		const timestamp = String(change.lead.updatedAt ?? change.lead.createdAt);
		records.recovered(
			`recovered\n${change.id}\n${change.version}`,
			change.topic,
			change.id,
			timestamp,
		);
		outcome.recovered++;
	}
	ledger.listenedUpTo(upToMs);
}

export async function recoverMissedEvents(
	this: ITriggerFunctions,
	executor: RunExecutor,
	/** true once the workflow is deactivated: stop without starting anything more */
	stopped: () => boolean = () => false,
): Promise<RecoveryOutcome> {
	const outcome: RecoveryOutcome = { recovered: 0, deferred: 0, listRequests: 0 };
	if (baselineDue(this)) return await takeBaselineIfDue.call(this, stopped);
	const topics = selectedTopics(this.getNodeParameter('events', []));
	const listing = await listLeads(this, { stopped });
	outcome.listRequests = listing.requests;
	if (listing.stopped || stopped()) return outcome;
	const records = executor.records();
	// thousands of leads may be found at once: the stores are written once, after all of them
	savingOnceAfter(() => {
		if (topics.some((topic) => topic !== 'lead/delete'))
			recoverChanges(this, records, listing.leads, outcome);
		if (topics.includes('lead/delete')) {
			const deletes = recoverDeletes(this, records, listing.leads, followUpsOf(this));
			outcome.recovered += deletes.handedOver;
			outcome.deferred += deletes.deferred;
		} else records.ledger.rememberListing(undefined);
	});
	executor.queue.wake();
	return outcome;
}
