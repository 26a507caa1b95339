import type { IDataObject } from 'n8n-workflow';

import type { PackedIds } from '../shared/changes/leadIds';
import { MAX_LEAD_ID_BYTES, packIds, packedBytes, unpackIds } from '../shared/changes/leadIds';
import { storedNumber } from '../shared/changes/storedNumber';
import { LEDGER_ENTRY_BYTES, LeadVersions } from '../shared/changes/versions';

/**
 * What the polling trigger keeps in static data between polls. n8n saves it when a poll
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

const STORE_KEY = 'polling';

export interface PollState {
	since: number;
	/** undefined: not tracked (too many leads to keep their ids) */
	ids: Set<string> | undefined;
	ran: LeadVersions;
	readAtMs: number;
	readRequests: number;
}

/** The stored state, or undefined before the first poll (the baseline). */
export function readPollState(nodeData: IDataObject): PollState | undefined {
	const stored = nodeData[STORE_KEY] as IDataObject | undefined;
	if (!stored || typeof stored !== 'object' || stored.clock !== 'service') return undefined;
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
 * Writes the state (a fresh object: n8n saves only assignments). The `ran` list first forgets
 * what the watermark covers and the oldest beyond its capacity (the watermark then rises to
 * them: they ran). Returns the ids' bytes.
 */
export function writePollState(
	nodeData: IDataObject,
	state: Omit<PollState, 'ids'> & { ids: Iterable<string> },
): { idBytes: number; idsTracked: boolean } {
	const packed: PackedIds = packIds(state.ids);
	const idBytes = packedBytes(packed);
	const idsTracked = idBytes <= MAX_LEAD_ID_BYTES;
	state.ran.forget(state.since, POLL_RAN_CAPACITY);
	nodeData[STORE_KEY] = {
		clock: 'service',
		since: Math.max(state.since, state.ran.forgottenUpTo),
		ran: state.ran.pack(),
		idsTracked,
		ids: idsTracked ? packed : {},
		readAtMs: state.readAtMs,
		readRequests: state.readRequests,
	};
	return { idBytes, idsTracked };
}
