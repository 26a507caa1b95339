import type { IDataObject } from 'n8n-workflow';

import type { FieldChanges } from '../../shared/changes/fieldChanges';
import type { KeptLead, WatchSettings } from '../../shared/changes/watchVerdict';
import { decideWatched } from '../../shared/changes/watchDecision';
import { compareOptionsFor } from '../../shared/changes/watchedFields';
import type { LeadTopic } from '../../shared/topics';
import type { PartnerLeadsFunctions } from '../../shared/transport/request';
import type { WatchedLeads, WatchedRecord } from '../state/watchedLeads';

/**
 * Fields to Watch for one lead event of the webhook trigger (a delivery, a recovered change, a
 * re-run, the test event): the decision both triggers share (nodes/shared/changes/watchDecision.ts)
 * with the topics chosen, and the values to keep with the values they replace (for a re-run and a
 * rollback). Without watched fields every event of a chosen topic starts a run.
 */

export interface LeadRead {
	leadId: string;
	topic: LeadTopic;
	/** the lead as read now; undefined when it is gone (or was not read) */
	lead: IDataObject | undefined;
	/** the version to keep when the lead has no time of its own (the event's time) */
	fallbackMs: number;
	/** a topic the user chose: only those start runs */
	selected: boolean;
	/** the editor's test event: it always runs, shows the changes against what is kept, keeps nothing */
	test?: boolean;
	/** a run again of one a hard kill interrupted: it runs, with the changes from the values before it */
	rerun?: { before: KeptLead | undefined };
}

export interface WatchedOutcome {
	start: boolean;
	/** the values to keep (when the run starts, or now when none does) */
	record?: WatchedRecord;
	changes?: FieldChanges;
	/** the lead is gone: its values are dropped */
	drop?: boolean;
}

export async function watchedOutcome(
	context: PartnerLeadsFunctions,
	watched: WatchedLeads,
	settings: WatchSettings,
	read: LeadRead,
): Promise<WatchedOutcome> {
	const start = read.selected || read.test === true || read.rerun !== undefined;
	if (!watched.watching) return { start, drop: !read.test };
	const known = read.rerun ? read.rerun.before : watched.kept(read.leadId);
	const decision = await decideWatched(
		{
			topic: read.topic,
			lead: read.lead,
			known,
			fallbackMs: read.fallbackMs,
			replay: read.test === true || read.rerun !== undefined,
		},
		settings,
		() => compareOptionsFor(context, settings.fields),
	);
	const outcome: WatchedOutcome = { start: start && decision.runs };
	if (decision.changes) outcome.changes = decision.changes;
	// the editor's test event keeps and drops nothing
	if (read.test) return outcome;
	if (decision.keep) outcome.record = { leadId: read.leadId, kept: decision.keep, before: known };
	if (decision.drop) outcome.drop = true;
	return outcome;
}

/** Keeps or drops what the outcome says, now (where no run carries it to its start). */
export function applyWatchedOutcome(
	watched: WatchedLeads,
	leadId: string,
	outcome: WatchedOutcome,
) {
	if (outcome.record) watched.record(leadId, outcome.record.kept);
	else if (outcome.drop) watched.drop(leadId);
}
