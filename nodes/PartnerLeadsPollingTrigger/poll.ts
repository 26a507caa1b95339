import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isNewActivation } from '../shared/changes/activation';
import type { Judgement, KnownChanges, LeadChange } from '../shared/changes/judge';
import { baselineOf, judgeListing, watermarkAfter } from '../shared/changes/judge';
import type { Listing } from '../shared/changes/listing';
import { deleteOutputFor, outputFor } from '../shared/changes/output';
import { LeadVersions, leadKey } from '../shared/changes/versions';
import { type LeadTopic, selectedTopics } from '../shared/topics';
import { fetchesFullLead } from '../shared/changes/watchedFields';
import { httpCodeOf } from '../shared/transport/errors';
import { cutShort, listForPoll } from './pollListing';
import { type PollState, POLL_STATE } from './pollState';
import { PollWatch } from './pollWatch';
import { newestLeadSample } from './sample';

/** marginMs: the watermark trails the newest change (service time), so late changes still run. */
export const POLL_TIMING = { marginMs: 60_000 };

/** Default "List Requests per Minute": polls are spaced to keep list reads at this average. */
export const DEFAULT_LIST_REQUESTS_PER_MINUTE = 30;

/** Poll contexts that polled already: n8n keeps one per activation and reuses it for every poll. */
const polledContexts = new WeakSet<object>();

/** Changes above the watermark run unless their version ran; a lead is new only if none ran. */
function knownTo(state: PollState): KnownChanges {
	return {
		sinceMs: state.since,
		judgedUpToMs: state.since,
		hasRun: (id, version) => (state.ran.get(leadKey(id))?.ms ?? -Infinity) >= version,
		knows: (id) => state.ran.get(leadKey(id)) !== undefined,
		listedIds: state.ids,
	};
}

function tooSoon(context: IPollFunctions, state: PollState, nowMs: number): boolean {
	const options = context.getNodeParameter('options', {}) as { listRequestsPerMinute?: number };
	const rate = Number(options.listRequestsPerMinute ?? DEFAULT_LIST_REQUESTS_PER_MINUTE);
	if (!(rate > 0) || state.readAtMs > nowMs) return false;
	return nowMs < state.readAtMs + (state.readRequests / rate) * 60_000;
}

interface Outputs {
	items: INodeExecutionData[];
	/** per lead handled (run, or its topic not selected), the version that ran */
	handled: Array<{ id: string; version: number }>;
	/** the changes left to the next poll: rate limits or the poll's time cut fetching short */
	left: LeadChange[];
	leftBecause?: 'rateLimited' | 'outOfTime';
}

/** Outputs, oldest first. A 429 past the wait budget or the deadline keeps what was fetched. */
async function outputsOf(
	context: IPollFunctions,
	changes: LeadChange[],
	topics: LeadTopic[],
	endsAtMs: number,
	watch: PollWatch,
) {
	const fetchFullLead = fetchesFullLead(context);
	const outputs: Outputs = { items: [], handled: [], left: [] };
	for (const [at, candidate] of changes.entries()) {
		let version = candidate.version;
		if (!topics.includes(candidate.topic)) watch.keepListed(candidate);
		else {
			if (fetchFullLead && outputs.items.length > 0 && Date.now() >= endsAtMs)
				return { ...outputs, left: changes.slice(at), leftBecause: 'outOfTime' as const };
			try {
				const output = await outputFor(context, candidate, fetchFullLead, 'polled');
				if (await watch.runs(candidate, output.json)) outputs.items.push({ json: output.json });
				version = output.version;
			} catch (error) {
				if (httpCodeOf(error) !== '429' || outputs.items.length === 0)
					throw cutShort(context, error);
				return { ...outputs, left: changes.slice(at), leftBecause: 'rateLimited' as const };
			}
		}
		outputs.handled.push({ id: candidate.id, version });
	}
	return outputs;
}

/** Leads present at activation never run: those above the first watermark go into `ran`. */
function baseline(
	nodeData: IDataObject,
	listing: Listing,
	cost: Pick<PollState, 'readAtMs' | 'readRequests'>,
	watch: PollWatch,
) {
	watch.keepFirstSeen(listing.leads, new Set());
	watch.write(nodeData);
	const { sinceMs, present } = baselineOf(listing.leads, POLL_TIMING.marginMs);
	const ran = new LeadVersions();
	for (const { id, version } of present) ran.raise(leadKey(id), { ms: version, exact: true });
	POLL_STATE.save(nodeData, {
		since: sinceMs,
		ran,
		ids: listing.leads.map(({ id }) => id),
		...cost,
	});
}

/** What the next poll starts from: the watermark stays below the changes left to it. */
function nextState(state: PollState, listing: Listing, judged: Judgement, outputs: Outputs) {
	for (const { id, version } of outputs.handled)
		state.ran.raise(leadKey(id), { ms: version, exact: true });
	let since = watermarkAfter(state.since, judged.newestMs, POLL_TIMING.marginMs);
	if (outputs.left.length > 0) since = Math.min(since, outputs.left[0].version - 1);
	// a new lead left to the next poll stays unknown, so that it runs as a create then
	const leftNew = new Set(outputs.left.filter((c) => c.topic === 'lead/create').map((c) => c.id));
	const ids = listing.leads.map(({ id }) => id).filter((id) => !leftNew.has(id));
	return { since, ids };
}

/** One poll: each lead changed since the last one runs once, as it is now (`polled: true`). */
export async function pollLeads(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (this.getMode() === 'manual') return await newestLeadSample(this);
	const nodeData = this.getWorkflowStaticData('node');
	const startsAnew = isNewActivation(this.getActivationMode()) && !polledContexts.has(this);
	polledContexts.add(this);
	const state = startsAnew ? undefined : POLL_STATE.read(nodeData);
	// n8n's clock only spaces the reads; changes are judged in the service's time
	const readAtMs = Date.now();
	if (state && tooSoon(this, state, readAtMs)) return null;

	const listing = await listForPoll(this);
	const cost = { readAtMs, readRequests: listing.requests };
	// a new activation starts the values anew too (what the portal holds now)
	const watch = PollWatch.read(this, state ? nodeData : {});
	if (!state) {
		baseline(nodeData, listing, cost, watch);
		// n8n 2.36+ (durable cursors) never commits an activation's first poll: the baseline would
		// be retaken and changes in between lost. This commits only its staged state (none on 1.x).
		await this.__commitCursor?.();
		return null;
	}
	const judged = judgeListing(listing.leads, knownTo(state));
	const topics = selectedTopics(this.getNodeParameter('events', []));
	// n8n 2.41+ drops a poll that runs past its timeout (45 s): full leads are fetched until then
	const budgetMs = (this.getPollBudgetMs as (() => number) | undefined)?.call(this);
	const deadline = typeof budgetMs === 'number' && budgetMs > 0 ? readAtMs + budgetMs : Infinity;
	const outputs = await outputsOf(this, judged.changes, topics, deadline, watch);
	watch.drop(judged.goneIds);
	watch.keepFirstSeen(listing.leads, new Set(judged.changes.map(({ id }) => id)));
	watch.write(nodeData);
	const items = outputs.items;
	if (topics.includes('lead/delete'))
		items.push(
			...judged.goneIds.map((id) => ({
				json: deleteOutputFor(id, new Date(readAtMs).toISOString(), 'polled'),
			})),
		);
	if (outputs.leftBecause) warnLeft(this, outputs.left.length, outputs.leftBecause);
	// n8n saves this with the execution it starts: a restart before then repeats this poll.
	const saved = POLL_STATE.save(nodeData, {
		...state,
		...nextState(state, listing, judged, outputs),
		...cost,
	});
	if (saved?.idsTracked === false && topics.includes('lead/delete'))
		this.logger.warn(
			'Partner Referral Service Polling Trigger: too many leads to keep their IDs, deleted leads are not reported',
			{ node: this.getNode().name },
		);
	return items.length > 0 ? [items] : null;
}

function warnLeft(
	context: IPollFunctions,
	left: number,
	because: NonNullable<Outputs['leftBecause']>,
): void {
	const reason =
		because === 'rateLimited'
			? 'the service kept answering "too many requests" (429) while fetching full leads'
			: "fetching full leads took the poll's time (n8n abandons a poll that runs too long)";
	context.logger.warn(
		`Partner Referral Service Polling Trigger: ${reason}; ${left} changes are left to the next poll`,
		{ node: context.getNode().name },
	);
}
