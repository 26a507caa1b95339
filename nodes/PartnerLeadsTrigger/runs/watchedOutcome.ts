import type { IDataObject } from 'n8n-workflow';

import type { FieldChanges } from '../../shared/changes/fieldChanges';
import { compareWatchedFields, keptRowOf } from '../../shared/changes/fieldChanges';
import type { KeptLead, WatchSettings } from '../../shared/changes/watchVerdict';
import { judgeWatchedUpdate } from '../../shared/changes/watchVerdict';
import { compareOptionsFor, keptVersionOf } from '../../shared/changes/watchedFields';
import { MAX_KEPT_VALUE_CHARS } from '../../shared/changes/watchedValues';
import type { LeadTopic } from '../../shared/topics';
import type { PartnerLeadsFunctions } from '../../shared/transport/request';
import type { WatchedLeads, WatchedRecord } from '../state/watchedLeads';

/**
 * What Fields to Watch decides for one lead event of the webhook trigger (a delivery, a
 * recovered change, a re-run): whether it starts a run, with which changes, and which values
 * to keep. Without watched fields every event of a chosen topic starts a run, as before.
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

async function updateOutcome(
	context: PartnerLeadsFunctions,
	watched: WatchedLeads,
	settings: WatchSettings,
	read: LeadRead & { lead: IDataObject },
): Promise<WatchedOutcome> {
	const known = read.rerun ? read.rerun.before : watched.kept(read.leadId);
	const ms = keptVersionOf(read.lead, read.fallbackMs);
	const options = await compareOptionsFor(context, settings.fields);
	if (read.test || read.rerun) {
		const { row, ...changes } = compareWatchedFields(
			known?.row,
			read.lead,
			settings.fields,
			options,
		);
		const record = { leadId: read.leadId, kept: { ms, row }, before: known };
		return { start: true, changes, record: read.test ? undefined : record };
	}
	const verdict = judgeWatchedUpdate(known, read.lead, ms, settings, options);
	// an older read than what is kept: that newer version was judged (and kept) already
	if (verdict.action === 'stale') return { start: false };
	const record = { leadId: read.leadId, kept: verdict.kept, before: known };
	if (verdict.action === 'keep') return { start: false, record };
	return { start: read.selected, record, changes: verdict.changes };
}

export async function watchedOutcome(
	context: PartnerLeadsFunctions,
	watched: WatchedLeads,
	settings: WatchSettings,
	read: LeadRead,
): Promise<WatchedOutcome> {
	const start = read.selected || read.test === true || read.rerun !== undefined;
	if (!watched.watching || read.topic === 'lead/delete') return { start, drop: !read.test };
	const lead = read.lead;
	// Gone before it was read: nothing to compare. Its creation still runs (as without
	// watching); an update does not (its delete, if chosen, is an event of its own).
	if (!lead) {
		const runs = read.topic === 'lead/create' || read.rerun !== undefined;
		return { start: start && runs, drop: !read.test };
	}
	if (read.topic === 'lead/update')
		return await updateOutcome(context, watched, settings, { ...read, lead });
	// A creation: the first look at the lead. Its values are kept; it runs without changes.
	if (read.test) return { start };
	const kept = {
		ms: keptVersionOf(lead, read.fallbackMs),
		row: keptRowOf(lead, settings.fields, MAX_KEPT_VALUE_CHARS),
	};
	const before = read.rerun ? read.rerun.before : watched.kept(read.leadId);
	return { start, record: { leadId: read.leadId, kept, before } };
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
