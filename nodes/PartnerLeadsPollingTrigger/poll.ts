import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { LeadTopic } from '../shared/topics';
import { isoTimeMs } from '../PartnerLeadsTrigger/eventAge';
import { selectedTopics } from '../PartnerLeadsTrigger/events';
import type { Candidate } from '../PartnerLeadsTrigger/recovery/recover';
import { outputFor } from '../PartnerLeadsTrigger/recovery/recover';
import { cutShort, listAllLeads, transportContext } from './listLeads';
import type { PollState } from './pollState';
import { readPollState, writePollState } from './pollState';
import { newestLeadSample } from './sample';

/**
 * One poll: reads the portal's leads and returns, in one execution, each lead created,
 * updated or deleted since the last poll, once, in the output shape of a delivery marked
 * `polled: true`. A lead changed several times between polls runs once, as it is now.
 */

/**
 * - settleMs: changes this recent are left to the next poll. Lead times may be whole seconds
 *   (the service does not say) and the list is read over some time: a change stamped within
 *   this margin of the read may not show in it yet.
 */
export const POLL_TIMING = { settleMs: 2_000 };

/** Default "List Requests per Minute": polls are spaced so that reading the list averages at most this. */
export const DEFAULT_LIST_REQUESTS_PER_MINUTE = 30;

/** Activations that start anew: the leads the portal holds then never run. */
const NEW_ACTIVATIONS = new Set(['activate', 'create']);

/** Poll contexts that polled already: n8n keeps one per activation and reuses it for every poll. */
const polledContexts = new WeakSet<object>();

interface Judged {
	candidates: Candidate[];
	/** ids to remember: every lead listed, except new ones whose change is left to the next poll */
	ids: Set<string>;
}

function idOf(lead: IDataObject): string {
	return typeof lead.id === 'string' || typeof lead.id === 'number' ? String(lead.id) : '';
}

function judgeLeads(leads: IDataObject[], state: PollState, upToMs: number): Judged {
	const judged: Judged = { candidates: [], ids: new Set() };
	for (const lead of leads) {
		const id = idOf(lead);
		const version = isoTimeMs(lead.updatedAt) ?? isoTimeMs(lead.createdAt);
		if (id === '' || version === undefined) continue;
		const created = isoTimeMs(lead.createdAt);
		const isNew = created !== undefined && created > state.since;
		if (version > upToMs) {
			// Too recent to judge: next poll. A new lead stays unknown until then, so a delete
			// before that poll starts nothing (its create never ran either).
			if (!isNew || state.ids?.has(id)) judged.ids.add(id);
			continue;
		}
		judged.ids.add(id);
		if (version <= state.since) continue;
		const topic: LeadTopic = isNew ? 'lead/create' : 'lead/update';
		judged.candidates.push({ lead, id, topic, version });
	}
	return judged;
}

function deletedLeads(previous: Set<string> | undefined, listed: IDataObject[], atIso: string) {
	if (!previous) return [];
	const present = new Set(listed.map(idOf));
	return [...previous]
		.filter((id) => !present.has(id))
		.map((id) => ({
			json: { event: { id, topic: 'lead/delete', timestamp: atIso }, polled: true } as IDataObject,
		}));
}

/** Whether the last read was too recent for the List Requests per Minute. */
function tooSoon(context: IPollFunctions, state: PollState, nowMs: number): boolean {
	const options = context.getNodeParameter('options', {}) as { listRequestsPerMinute?: number };
	const rate = Number(options.listRequestsPerMinute ?? DEFAULT_LIST_REQUESTS_PER_MINUTE);
	if (!(rate > 0) || state.readAtMs > nowMs) return false;
	return nowMs < state.readAtMs + (state.readRequests / rate) * 60_000;
}

async function outputsOf(context: IPollFunctions, candidates: Candidate[], topics: LeadTopic[]) {
	const fetchFullLead = context.getNodeParameter('fetchFullLead', true) !== false;
	const items: INodeExecutionData[] = [];
	for (const candidate of candidates.sort((a, b) => a.version - b.version)) {
		if (!topics.includes(candidate.topic)) continue;
		const { json } = await outputFor(
			transportContext(context),
			candidate,
			fetchFullLead,
			'polled',
		).catch((error: unknown) => {
			throw cutShort(context, error);
		});
		items.push({ json });
	}
	return items;
}

export async function pollLeads(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (this.getMode() === 'manual') return await newestLeadSample(this);
	const nodeData = this.getWorkflowStaticData('node');
	const startsAnew = NEW_ACTIVATIONS.has(this.getActivationMode()) && !polledContexts.has(this);
	polledContexts.add(this);
	const state = startsAnew ? undefined : readPollState(nodeData);
	const readAtMs = Date.now();
	if (state && tooSoon(this, state, readAtMs)) return null;

	const listing = await listAllLeads(this);
	const cost = { readAtMs, readRequests: listing.requests };
	if (!state) {
		// The baseline: what the portal holds now never runs.
		writePollState(nodeData, { since: readAtMs, ids: listing.leads.map(idOf), ...cost });
		return null;
	}
	const upToMs = readAtMs - POLL_TIMING.settleMs;
	const judged = judgeLeads(listing.leads, state, upToMs);
	const topics = selectedTopics(this.getNodeParameter('events', []));
	const items = await outputsOf(this, judged.candidates, topics);
	if (topics.includes('lead/delete'))
		items.push(...deletedLeads(state.ids, listing.leads, new Date(readAtMs).toISOString()));
	// Saved by n8n with the execution these items start (or after activation): a restart
	// before then repeats this window.
	const { idsTracked } = writePollState(nodeData, {
		since: Math.max(state.since, upToMs),
		ids: judged.ids,
		...cost,
	});
	if (!idsTracked && topics.includes('lead/delete'))
		this.logger.warn(
			'Partner Referral Service Polling Trigger: too many leads to keep their IDs, deleted leads are not reported',
			{ node: this.getNode().name },
		);
	return items.length > 0 ? [items] : null;
}
