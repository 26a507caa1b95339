import type { IPollFunctions } from 'n8n-workflow';

import { newestVersion } from '../shared/changes/judge';
import type { LeftOver } from '../shared/changes/idSketch';
import type { ListedLead } from '../shared/changes/listedLead';
import { LeadVersions } from '../shared/changes/versions';
import { confirmGone, NOTHING_ASKED } from './confirmGone';
import { readSlice, type Slice } from './pollListing';
import { LeadIdsSeen, newSweep, notListedAgain, type PollState } from './pollState';
import { DEFAULT_LIST_REQUESTS_PER_MINUTE, POLL_TIMING } from './pollTiming';

/**
 * A look's reads within the request budget and the look's time: the newest end of the list,
 * the leads left to ask for, the sweep's next slice and, where the sweep ends with it, the leads
 * it did not list again. A first look starts the baseline.
 */

function listRequestsPerMinute(context: IPollFunctions): number {
	const options = context.getNodeParameter('options', {}) as { listRequestsPerMinute?: number };
	const rate = Number(options.listRequestsPerMinute ?? DEFAULT_LIST_REQUESTS_PER_MINUTE);
	return rate > 0 ? rate : DEFAULT_LIST_REQUESTS_PER_MINUTE;
}

/** List requests the budget allows now: one minute's worth at most, refilled as time passes. */
function requestTokens(state: PollState | undefined, rate: number, nowMs: number): number {
	if (!state || state.tokensAtMs > nowMs) return rate;
	return Math.min(rate, state.requestTokens + ((nowMs - state.tokensAtMs) / 60_000) * rate);
}

/**
 * A first look starts the baseline: a sweep during which what the portal held never runs. The
 * service's Date header dates the activation; without one, the watermark starts at the newest
 * version listed (the service's clock is past it) and n8n's clock bounds what was there.
 */
function baselineState(
	serviceMs: number | undefined,
	newestListedMs: number,
	lookAtMs: number,
	rate: number,
): PollState {
	return {
		since: (serviceMs ?? newestListedMs) - POLL_TIMING.marginMs,
		// the Date header counts whole seconds
		presentUpTo: (serviceMs ?? Math.max(lookAtMs, newestListedMs)) + 1_000,
		// created before the service's clock at the first answer: there, never new (n8n's may be ahead)
		thereUpToMs: (serviceMs ?? newestListedMs) - 1,
		ran: new LeadVersions(),
		ids: LeadIdsSeen.empty(),
		sketches: undefined,
		maybeGone: [],
		sweep: newSweep(0),
		newest: { end: 'unknown', resumeToken: undefined },
		newestVersionMs: 0,
		requestTokens: rate,
		tokensAtMs: 0,
	};
}

/** The leads of a look, each once: the later part's copy where two listed one. */
export function leadsOf(parts: Array<ListedLead[] | undefined>): ListedLead[] {
	const byId = new Map<string, ListedLead>();
	for (const part of parts) for (const lead of part ?? []) byId.set(lead.id, lead);
	return [...byId.values()];
}

/** The end where new leads appear, read at every look once a whole sweep has shown it. */
async function readNewestEnd(
	context: IPollFunctions,
	state: PollState,
	tokens: number,
	endsAtMs: number,
): Promise<Slice | undefined> {
	const { newest } = state;
	if (state.presentUpTo !== undefined || newest.end === 'unknown') return undefined;
	// at the start one page holds the newest; at the end, the anchor's page and the one after it
	const wanted = newest.end === 'start' ? 1 : POLL_TIMING.newestEndRequests;
	const maxRequests = Math.min(wanted, Math.floor(tokens));
	return await readSlice(context, {
		resumeToken: newest.end === 'end' ? newest.resumeToken : undefined,
		maxRequests,
		endsAtMs,
	});
}

export interface LookRead {
	state: PollState;
	/** each once, from the newest end and the sweep's slice */
	leads: ListedLead[];
	newestEnd: Slice | undefined;
	sweepSlice: Slice | undefined;
	/** leads a sweep did not list again, asked for: those left from earlier looks, then this one's */
	asked: { gone: string[]; present: ListedLead[] };
	/** `maybeGone` before this look asked for any */
	maybeGoneBefore: string[];
	/** the sweep ends with this look: the leads it did not list again that are still to ask for */
	endOfSweep: LeftOver | undefined;
}

/** The reads of a look within the request budget; undefined when the budget allows none. */
export async function readLook(
	context: IPollFunctions,
	stored: PollState | undefined,
	lookAtMs: number,
): Promise<LookRead | undefined> {
	const rate = listRequestsPerMinute(context);
	let tokens = requestTokens(stored, rate, lookAtMs);
	if (tokens < 1) return undefined;
	const readsUntilMs = lookAtMs + POLL_TIMING.readingMs;
	const ask = async (ids: string[]) => {
		const asked = ids.length
			? await confirmGone(context, ids, Math.floor(tokens), readsUntilMs)
			: NOTHING_ASKED;
		tokens -= asked.requests;
		return asked;
	};
	const newestEnd = stored && (await readNewestEnd(context, stored, tokens, readsUntilMs));
	tokens -= newestEnd?.requests ?? 0;
	const maybeGoneBefore = stored?.maybeGone ?? [];
	const earlier = await ask(maybeGoneBefore);
	if (stored) stored.maybeGone = maybeGoneBefore.slice(earlier.settled);
	const sliceRequests = Math.floor(
		stored ? tokens : Math.min(tokens, POLL_TIMING.publishingRequests),
	);
	const sweepSlice =
		sliceRequests >= 1
			? await readSlice(context, {
					resumeToken: stored?.sweep.resumeToken,
					maxRequests: sliceRequests,
					endsAtMs: readsUntilMs,
				})
			: undefined;
	tokens -= sweepSlice?.requests ?? 0;
	const endOfSweep = stored && sweepEndsAt(stored, sweepSlice, newestEnd);
	const atEnd = await ask(endOfSweep?.ids ?? []);
	if (endOfSweep) endOfSweep.ids = endOfSweep.ids.slice(atEnd.settled);
	const serviceMs = newestEnd?.serviceMs ?? sweepSlice?.serviceMs;
	const leads = leadsOf([newestEnd?.leads, sweepSlice?.leads]);
	const state = stored ?? baselineState(serviceMs, newestVersion(leads) ?? 0, lookAtMs, rate);
	if (sweepSlice && state.sweep.resumeToken === undefined)
		// a lower bound of the service's clock when the sweep began: every later change is newer
		state.sweep = newSweep(
			serviceMs ?? Math.max(state.newestVersionMs, newestVersion(sweepSlice.leads) ?? 0),
		);
	state.newestVersionMs = Math.max(state.newestVersionMs, newestVersion(leads) ?? 0);
	state.requestTokens = tokens;
	state.tokensAtMs = lookAtMs;
	const asked = {
		gone: [...earlier.gone, ...atEnd.gone],
		present: [...earlier.present, ...atEnd.present],
	};
	return { state, leads, newestEnd, sweepSlice, asked, maybeGoneBefore, endOfSweep };
}

/**
 * Where a judged sweep (not the baseline) ends with this slice: the leads the last whole sweep
 * listed and this one did not, to ask for in the same look (the budget allowing).
 */
function sweepEndsAt(
	state: PollState,
	slice: Slice | undefined,
	newestEnd: Slice | undefined,
): LeftOver | undefined {
	if (!slice || slice.resumeToken !== undefined || state.presentUpTo !== undefined)
		return undefined;
	const ids = (part: Slice | undefined) => part?.leads.map(({ id }) => id) ?? [];
	return notListedAgain(state, ids(slice), ids(newestEnd));
}
