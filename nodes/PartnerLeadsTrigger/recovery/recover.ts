import type {
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import { getLead } from '../../shared/leads';
import { httpCodeOf } from '../../shared/transport/errors';
import { pagesOf } from '../../shared/transport/paging';
import type { LeadTopic } from '../../shared/topics';
import { SeenEvents } from '../deduplication';
import { isoTimeMs, maxEventAgeSeconds } from '../eventAge';
import { selectedTopics } from '../events';
import { RecoveryLedger } from './ledger';
import { RECOVERY_TIMING } from './timing';

/**
 * One recovery: lists the portal's leads and starts the workflow once for each lead created
 * or changed since the trigger started listening that has not run yet, with the output of a
 * live delivery marked `recovered: true`. The list has no filters, so every page is read.
 */

export interface RecoveryOutcome {
	/** leads that started an execution */
	recovered: number;
	/** leads changed too recently to judge yet: a follow-up check is due */
	deferred: number;
	/** list requests made */
	listRequests: number;
}

export type Candidate = { lead: IDataObject; id: string; topic: LeadTopic; version: number };

/** How an output that did not come from a delivery is marked: `recovered` or `polled`. */
export type OutputMark = 'recovered' | 'polled';

/** Whose ledger and event memory: one trigger node of one workflow, production only. */
export function productionScope(context: {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
}): string {
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}:production`;
}

export function openLedger(
	context: ITriggerFunctions,
	nowMs: () => number = Date.now,
): RecoveryLedger {
	const options = context.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	return new RecoveryLedger(context.getWorkflowStaticData('node'), productionScope(context), {
		maxAgeSeconds: maxEventAgeSeconds(options.maxEventAgeHours),
		nowMs,
	});
}

/** Which change a listed lead stands for, if it has not run yet. */
function judgeLead(
	lead: IDataObject,
	ledger: RecoveryLedger,
	upToMs: number,
	topics: LeadTopic[],
): Candidate | 'deferred' | undefined {
	const id = typeof lead.id === 'string' || typeof lead.id === 'number' ? String(lead.id) : '';
	const version = isoTimeMs(lead.updatedAt) ?? isoTimeMs(lead.createdAt);
	if (id === '' || version === undefined) return undefined;
	if (version <= ledger.recoverAfterMs || ledger.hasRun(id, version)) return undefined;
	if (version > upToMs) return 'deferred';
	const created = isoTimeMs(lead.createdAt);
	// Created while the trigger was listening and never run: the change is the lead's
	// creation (with whatever was changed since); otherwise it is an update.
	const topic: LeadTopic =
		created !== undefined && created > ledger.since && !ledger.knows(id)
			? 'lead/create'
			: 'lead/update';
	return topics.includes(topic) ? { lead, id, topic, version } : undefined;
}

/** A listed lead's change in the output shape of a delivery (also used by the polling trigger). */
export async function outputFor(
	context: ITriggerFunctions | IPollFunctions,
	candidate: Candidate,
	fetchFullLead: boolean,
	mark: OutputMark = 'recovered',
): Promise<{ json: IDataObject; version: number }> {
	const timestamp = String(candidate.lead.updatedAt ?? candidate.lead.createdAt);
	const json: IDataObject = {
		event: { id: candidate.id, topic: candidate.topic, timestamp },
		[mark]: true,
	};
	if (!fetchFullLead) return { json, version: candidate.version };
	// The same full lead a delivery gives (a listed lead may carry fewer fields); a lead
	// deleted since it was listed still runs, as a delivery's would.
	const lead = await getLead.call(context, candidate.id).catch((error: unknown) => {
		if (httpCodeOf(error) === '404') return undefined;
		throw error;
	});
	if (!lead) {
		json.leadNotFound = true;
		return { json, version: candidate.version };
	}
	json.lead = lead;
	return { json, version: Math.max(candidate.version, isoTimeMs(lead.updatedAt) ?? 0) };
}

export async function recoverMissedEvents(
	this: ITriggerFunctions,
	/** true once the workflow is deactivated: stop without starting anything more */
	stopped: () => boolean = () => false,
	nowMs: () => number = Date.now,
): Promise<RecoveryOutcome> {
	const outcome: RecoveryOutcome = { recovered: 0, deferred: 0, listRequests: 0 };
	const topics = selectedTopics(this.getNodeParameter('events', [])).filter(
		(topic) => topic !== 'lead/delete',
	);
	const ledger = openLedger(this, nowMs);
	const upToMs = nowMs() - RECOVERY_TIMING.settleMs;
	if (topics.length === 0 || ledger.since === 0 || upToMs <= ledger.since) return outcome;

	const candidates: Candidate[] = [];
	const pages = pagesOf.call(this, { path: '/leads', what: 'list of leads' }) as AsyncGenerator<
		IDataObject[]
	>;
	for await (const page of pages) {
		if (stopped()) return outcome;
		outcome.listRequests++;
		for (const lead of page) {
			const verdict = judgeLead(lead, ledger, upToMs, topics);
			if (verdict === 'deferred') outcome.deferred++;
			else if (verdict) candidates.push(verdict);
		}
	}
	candidates.sort((a, b) => a.version - b.version);

	const fetchFullLead = this.getNodeParameter('fetchFullLead', true) !== false;
	const options = this.getNodeParameter('options', {}) as { maxEventAgeHours?: number };
	for (const [index, candidate] of candidates.entries()) {
		const { json, version } = await outputFor(this, candidate, fetchFullLead);
		if (stopped()) return outcome;
		// Recorded before the execution starts, and saved by n8n with it: after a restart in
		// the middle of a recovery the leads already started are not started again.
		ledger.recordRecovered(candidate.id, version);
		if (index === candidates.length - 1) ledger.listenedUpTo(upToMs);
		// Static data is saved whole with this emit: write back the events this process
		// remembers as delivered too, so the save does not erase them.
		new SeenEvents(this.getWorkflowStaticData('node'), productionScope(this), {
			maxAgeSeconds: maxEventAgeSeconds(options.maxEventAgeHours),
		}).writeBack();
		this.emit([[{ json } as INodeExecutionData]]);
		outcome.recovered++;
	}
	if (candidates.length === 0) ledger.listenedUpTo(upToMs);
	return outcome;
}
