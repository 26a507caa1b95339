import type { IDataObject } from 'n8n-workflow';

import type { PackedIds } from './leadIds';
import { packIds, packedBytes, unpackIds } from './leadIds';

/**
 * What the polling trigger keeps in static data between polls. n8n saves it with each poll
 * that starts an execution (and after activation), in the same step: a restart before that
 * save repeats the poll's window, so nothing is lost and nothing runs twice.
 *
 * - `since`: every lead change up to this time (the lead's updatedAt, epoch ms) has been
 *   handled; the next poll runs the changes after it.
 * - `ids`: the leads seen at the last poll, for deletes (left out above MAX_ID_BYTES).
 * - `readAtMs`, `readRequests`: when the list was last read and what it cost, so polls are
 *   spaced to the List Requests per Minute.
 */

/** The ids are kept only while they take at most this much: static data is saved whole. */
export const MAX_ID_BYTES = 1_000_000;

const STORE_KEY = 'polling';

export interface PollState {
	since: number;
	/** undefined: not tracked (the first poll, or too many leads to keep their ids) */
	ids: Set<string> | undefined;
	readAtMs: number;
	readRequests: number;
}

function finite(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** The stored state, or undefined before the first poll (the baseline). */
export function readPollState(nodeData: IDataObject): PollState | undefined {
	const stored = nodeData[STORE_KEY] as IDataObject | undefined;
	if (!stored || typeof stored !== 'object' || finite(stored.since) === 0) return undefined;
	return {
		since: finite(stored.since),
		ids: stored.idsTracked === true ? unpackIds(stored.ids) : undefined,
		readAtMs: finite(stored.readAtMs),
		readRequests: finite(stored.readRequests),
	};
}

/** Writes the state (a fresh object: n8n saves only assignments). Returns the ids' bytes. */
export function writePollState(
	nodeData: IDataObject,
	state: Omit<PollState, 'ids'> & { ids: Iterable<string> },
): { idBytes: number; idsTracked: boolean } {
	const packed: PackedIds = packIds(state.ids);
	const idBytes = packedBytes(packed);
	const idsTracked = idBytes <= MAX_ID_BYTES;
	nodeData[STORE_KEY] = {
		since: state.since,
		idsTracked,
		ids: idsTracked ? packed : {},
		readAtMs: state.readAtMs,
		readRequests: state.readRequests,
	};
	return { idBytes, idsTracked };
}
