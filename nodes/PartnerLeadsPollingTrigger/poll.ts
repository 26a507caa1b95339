import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isNewActivation } from '../shared/changes/activation';
import type { KnownChanges, LeadChange } from '../shared/changes/judge';
import { judgeListing } from '../shared/changes/judge';
import type { ListedLead } from '../shared/changes/listedLead';
import { deleteOutputFor, outputFor } from '../shared/changes/output';
import { leadKey } from '../shared/changes/versions';
import { fetchesFullLead } from '../shared/changes/watchedFields';
import { type LeftOver, SKETCH_NAMES_UP_TO } from '../shared/changes/idSketch';
import { figure } from '../shared/figures';
import { nodeScope } from '../shared/state/nodeStore';
import { type LeadTopic, selectedTopics } from '../shared/topics';
import { httpCodeOf } from '../shared/transport/errors';
import { leadsOf, readLook } from './lookReads';
import { cutShort, type Slice } from './pollListing';
import { LeadIdsSeen, newSweep, type PollState, POLL_STATE } from './pollState';
import { POLL_TIMING } from './pollTiming';
import { PollWatch } from './pollWatch';
import { newestLeadSample } from './sample';
import { newestEndAfter, orderAfter } from './sweepOrder';

/** Poll contexts that polled already: n8n keeps one per activation and reuses it for every poll. */
const polledContexts = new WeakSet<object>();

/** Trigger nodes with a look under way: n8n starts a poll at each Poll Time, even meanwhile. */
const looking = new Set<string>();

/**
 * Changes above the watermark run unless their version ran; a lead is new only if none ran and
 * no sweep listed it (`stillThere`: asked for, as a sweep before listed it).
 */
function knownTo(state: PollState, stillThere: ReadonlySet<string>): KnownChanges {
	const present = state.presentUpTo;
	return {
		// while the baseline lasts, what was there at activation is no change and not new
		sinceMs: present ?? state.since,
		judgedUpToMs: Math.max(state.since, present ?? -Infinity),
		hasRun: (id, version) => (state.ran.get(leadKey(id))?.ms ?? -Infinity) >= version,
		knows: (id) => stillThere.has(id) || state.ran.get(leadKey(id)) !== undefined,
		listedIds: present === undefined && state.ids?.ofLastSweep ? state.ids : undefined,
		thereUpToMs: state.thereUpToMs,
	};
}

interface Outputs {
	items: INodeExecutionData[];
	/** per lead handled (run, or its topic not selected), the version that ran */
	handled: Array<{ id: string; version: number }>;
	/** the changes left to the next look: rate limits or the poll's time cut fetching short */
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

/** One poll at a time per trigger node: a Poll Time that comes while one runs starts nothing. */
export async function pollLeads(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (this.getMode() === 'manual') return await newestLeadSample(this);
	const key = nodeScope(this);
	if (looking.has(key)) return null;
	looking.add(key);
	try {
		return await look(this);
	} finally {
		looking.delete(key);
	}
}

/**
 * One look: the newest end of the list (where it is known) and the sweep's next slice, within
 * the request budget and the look's time. Each change runs once, as the lead is now
 * (`polled: true`); deletes are found when a sweep ends.
 */
async function look(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const nodeData = context.getWorkflowStaticData('node');
	const startsAnew = isNewActivation(context.getActivationMode()) && !polledContexts.has(context);
	polledContexts.add(context);
	const stored = startsAnew ? undefined : POLL_STATE.read(nodeData);
	// n8n's clock only spaces the reads; changes are judged in the service's time
	const lookAtMs = Date.now();
	const read = await readLook(context, stored, lookAtMs);
	if (!read) return null;
	const { state, newestEnd, sweepSlice, asked } = read;
	// a lead asked for and still there is judged as if listed
	const leads = leadsOf([asked.present, read.leads]);

	// a new activation starts the values anew too (what the portal holds now)
	const watch = PollWatch.read(context, stored ? nodeData : {});
	const stillThere = new Set(asked.present.map(({ id }) => id));
	const { changes } = judgeListing(leads, knownTo(state, stillThere));
	if (state.presentUpTo !== undefined) keepPresent(state, leads);
	const topics = selectedTopics(context.getNodeParameter('events', []));
	// n8n 2.41+ drops a poll that runs past its timeout (45 s): full leads are fetched until then
	const budgetMs = (context.getPollBudgetMs as (() => number) | undefined)?.call(context);
	const deadline = typeof budgetMs === 'number' && budgetMs > 0 ? lookAtMs + budgetMs : Infinity;
	const outputs = await outputsOf(context, changes, topics, deadline, watch);
	if (outputs.leftBecause) warnLeft(context, outputs.left.length, outputs.leftBecause);
	recordLook(state, leads, outputs);
	// changes left: the next look reads the same parts and asks for the same leads again (what
	// ran does not run again)
	const readOn = outputs.left.length === 0;
	if (readOn && newestEnd && state.newest.end === 'end')
		state.newest.resumeToken = newestEnd.positionToken;
	if (!readOn) state.maybeGone = read.maybeGoneBefore;
	const gone = readOn ? asked.gone : [];
	if (readOn && state.sketches && stillThere.size > 0) keepSketched(state, [...stillThere]);
	if (readOn && sweepSlice) sweepOn(context, state, sweepSlice, read.endOfSweep);
	if (state.ids?.tooManyToPack) [state.sketches, state.ids] = [state.ids.sketched(), undefined];

	watch.drop(gone);
	watch.keepFirstSeen(leads, new Set(changes.map(({ id }) => id)));
	watch.write(nodeData);
	const items = outputs.items;
	if (topics.includes('lead/delete'))
		for (const id of gone)
			items.push({ json: deleteOutputFor(id, new Date(lookAtMs).toISOString(), 'polled') });
	// n8n saves this with the execution it starts (2.x with durable cursors: a null too)
	const saved = POLL_STATE.save(nodeData, state);
	if (saved?.idsTracked === false && !state.sketches && topics.includes('lead/delete'))
		context.logger.warn(
			'Partner Referral Service Polling Trigger: too many leads to keep their IDs, deleted leads are not reported',
			{ node: context.getNode().name },
		);
	// n8n 2.36+ (durable cursors) never commits an activation's first poll: the baseline would
	// be retaken and changes in between lost. This commits only its staged state (none on 1.x).
	if (startsAnew && items.length === 0) await context.__commitCursor?.();
	return items.length > 0 ? [items] : null;
}

/** While the baseline lasts, leads listed at versions up to `presentUpTo` count as run. */
function keepPresent(state: PollState, leads: ListedLead[]): void {
	const presentUpTo = state.presentUpTo ?? -Infinity;
	for (const { id, version } of leads)
		if (version !== undefined && version > state.since && version <= presentUpTo)
			state.ran.raise(leadKey(id), { ms: version, exact: true });
}

/** What ran, and the leads listed; a new lead left to the next look stays unknown (a create then). */
function recordLook(state: PollState, leads: ListedLead[], outputs: Outputs): void {
	for (const { id, version } of outputs.handled)
		state.ran.raise(leadKey(id), { ms: version, exact: true });
	const leftNew = new Set(outputs.left.filter((c) => c.topic === 'lead/create').map((c) => c.id));
	for (const { id } of leads) if (!leftNew.has(id)) state.ids?.listed(id);
}

/** Leads listed outside the sweep's slices go into its sketch too (an id too long: none kept). */
function keepSketched(state: PollState, ids: string[]): void {
	// an id too long for a sketch: deletes are not found (logged when saved)
	if (state.sketches && !state.sketches.listed(ids)) state.sketches = undefined;
}

/** The sweep goes on past the slice; at the list's end, it ends (`notListed`: still to ask for). */
function sweepOn(
	context: IPollFunctions,
	state: PollState,
	slice: Slice,
	notListed: LeftOver | undefined,
): void {
	keepSketched(
		state,
		slice.leads.map(({ id }) => id),
	);
	state.sweep.order = orderAfter(state.sweep.order, slice.leads);
	state.sweep.resumeToken = slice.resumeToken;
	state.sweep.listed += slice.leads.length;
	if (slice.resumeToken === undefined) endSweep(context, state, slice, notListed);
}

/**
 * A whole sweep read: the leads it did not list again and not yet asked for are asked for at
 * the next looks; the watermark rises to the sweep's start less the margin (a change after it is
 * newer); the next sweep starts at the start of the list.
 */
function endSweep(
	context: IPollFunctions,
	state: PollState,
	last: Slice,
	notListed: LeftOver | undefined,
): void {
	const { sweep } = state;
	if (notListed) {
		state.maybeGone = [...new Set([...state.maybeGone, ...notListed.ids])];
		if (!notListed.complete) warnUnnamed(context, notListed.unnamed);
	}
	state.sketches = state.sketches?.next();
	// neither kept (an id too long for a sketch): the next sweep tries again
	state.ids = state.ids?.swept() ?? (state.sketches ? undefined : LeadIdsSeen.empty());
	state.since = Math.max(state.since, sweep.startedMs - POLL_TIMING.marginMs);
	state.presentUpTo = undefined;
	state.newest = newestEndAfter(sweep.order, last.positionToken);
	state.sweep = newSweep(0);
}

function warnUnnamed(context: IPollFunctions, unnamed: number): void {
	context.logger.warn(
		`Partner Referral Service Polling Trigger: ${unnamed > 0 ? `about ${figure(unnamed)}` : 'some'} leads deleted during the last read-through of the list could not be identified (in a large portal it tells apart up to ${figure(SKETCH_NAMES_UP_TO)} leads deleted or created in one read-through), so their deletes do not run. Raise List Requests per Minute if the service allows it, so that a read-through takes less time`,
		{ node: context.getNode().name },
	);
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
