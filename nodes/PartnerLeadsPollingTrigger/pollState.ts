import type { IDataObject } from 'n8n-workflow';

import { MAX_LEAD_ID_BYTES, packIds, packedBytes, unpackIds } from '../shared/changes/leadIds';
import { storedNumber } from '../shared/changes/storedNumber';
import { LEDGER_ENTRY_BYTES, LeadVersions } from '../shared/changes/versions';
import { StaticStore } from '../shared/state/nodeStore';

/**
 * What the polling trigger keeps between polls, a `StaticStore` of the state layer
 * (nodes/shared/state/nodeStore.ts): the poll is its only writer. n8n saves it when a poll
 * starts an execution (and after activation); with durable poll cursors (n8n 2.36+) in the
 * same transaction as the execution, and after a poll that starts nothing too. A restart
 * before that save repeats the poll's window: nothing is lost and nothing runs twice
 * (docs/design/polling.md).
 *
 * Times that judge changes are the service's own (its leads' updatedAt/createdAt), never
 * n8n's clock: the two machines' clocks may differ by any amount (docs/design/polling.md).
 *
 * - `since`: the watermark, in service time (epoch ms): every lead change stamped at or
 *   before it ran, or predates the activation; the next poll judges only the changes after it.
 * - `ran`: per lead (hashed id), the version (updatedAt) that ran above the watermark, so a
 *   change is not run again while it stays above it. Bounded: at most POLL_RAN_CAPACITY
 *   leads (29 bytes each), and the versions at or below the watermark are forgotten.
 * - `ids`: the leads seen at the last poll, for creates and deletes (left out above MAX_LEAD_ID_BYTES).
 * - `readAtMs`, `readRequests`: when the list was last read (n8n's clock) and what it cost,
 *   so polls are spaced to the List Requests per Minute.
 *
 * Beside it, under its own key and written with each poll (pollWatch.ts): with Fields to Watch,
 * the watched values per lead (nodes/shared/changes/watchedValues.ts), 29 bytes a lead plus the
 * values, at most MAX_WATCHED_BYTES (2,000,000).
 */

/** Leads whose version above the watermark is remembered; beyond it the watermark rises. */
export const POLL_RAN_CAPACITY = 5_000;

/** Bytes the `ran` list may take at most: with 50,000 24-hex ids (800,010) under 1 MB. */
export const MAX_RAN_BYTES = POLL_RAN_CAPACITY * LEDGER_ENTRY_BYTES;

export interface PollState {
	since: number;
	/** undefined: not tracked (too many leads to keep their ids) */
	ids: Set<string> | undefined;
	ran: LeadVersions;
	readAtMs: number;
	readRequests: number;
}

/** What a poll writes: the ids as listed. */
export type PollStateToWrite = Omit<PollState, 'ids'> & { ids: Iterable<string> };

function readState(stored: IDataObject): PollState | undefined {
	if (stored.clock !== 'service') return undefined;
	const ran = new LeadVersions();
	ran.merge(stored.ran, undefined);
	return {
		since: storedNumber(stored.since),
		ids: stored.idsTracked === true ? unpackIds(stored.ids) : undefined,
		ran,
		readAtMs: storedNumber(stored.readAtMs),
		readRequests: storedNumber(stored.readRequests),
	};
}

/**
 * The stored form. The `ran` list first forgets what the watermark covers and the oldest
 * beyond its capacity (the watermark then rises to them: they ran); the ids are left out
 * above MAX_LEAD_ID_BYTES (`idsTracked` false).
 */
function storedState(state: PollStateToWrite): IDataObject {
	const packed = packIds(state.ids);
	const idsTracked = packedBytes(packed) <= MAX_LEAD_ID_BYTES;
	state.ran.forget(state.since, POLL_RAN_CAPACITY);
	return {
		clock: 'service',
		since: Math.max(state.since, state.ran.forgottenUpTo),
		ran: state.ran.pack(),
		idsTracked,
		ids: idsTracked ? packed : {},
		readAtMs: state.readAtMs,
		readRequests: state.readRequests,
	};
}

/** The poll's state; none before the first poll (the baseline). */
export const POLL_STATE = new StaticStore<PollState, PollStateToWrite>({
	key: 'polling',
	name: 'pollState',
	read: readState,
	stored: storedState,
});
