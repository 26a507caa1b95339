import type { IDataObject } from 'n8n-workflow';

import { MAX_LEAD_ID_BYTES, packIds, packedBytes, unpackIds } from '../shared/changes/leadIds';
import { storedNumber } from '../shared/changes/storedNumber';
import { LeadVersions } from '../shared/changes/versions';
import { StaticStore } from '../shared/state/nodeStore';

/**
 * Polling state, written only by the poll and saved with the execution it starts. Times are the
 * service's, never n8n's clock (docs/design/polling.md).
 * - `since`: the watermark; only changes after it are judged.
 * - `ran`: per lead, the version that ran above the watermark, so it does not run again.
 * - `ids`: the leads listed last poll, for creates and deletes.
 * - `readAtMs`, `readRequests`: the last read (n8n's clock) and its cost, to space polls.
 */

/** Leads whose version above the watermark is remembered; beyond it the watermark rises. */
export const POLL_RAN_CAPACITY = 5_000;

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

/** `ran` forgets what the watermark covers and the oldest past capacity (the watermark rises). */
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
