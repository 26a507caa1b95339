import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { MAX_LEAD_ID_BYTES, packedBytes, packIds } from '../../../nodes/shared/changes/leadIds';
import { LeadVersions, leadKey } from '../../../nodes/shared/changes/versions';
import {
	LeadIdsSeen,
	newSweep,
	type PollState,
	POLL_RAN_CAPACITY,
	POLL_STATE,
} from '../../../nodes/PartnerLeadsPollingTrigger/pollState';

/** How many of these leads a packed ledger as static data holds it names, read back anew. */
function leadsIn(packed: unknown, leadIds: string[]): number {
	const read = new LeadVersions();
	read.merge(packed, 0);
	return leadIds.filter((leadId) => read.get(leadKey(leadId)) !== undefined).length;
}

function stateWith(since: number, ran: LeadVersions, listed: string[]): PollState {
	const ids = LeadIdsSeen.empty();
	for (const id of listed) ids.listed(id);
	return {
		since,
		presentUpTo: undefined,
		thereUpToMs: 0,
		ran,
		ids,
		sketches: undefined,
		maybeGone: [],
		sweep: newSweep(1),
		newest: { end: 'unknown', resumeToken: undefined },
		newestVersionMs: 1,
		requestTokens: 1,
		tokensAtMs: 1,
	};
}

/** The polling trigger's state: its bounds hold, and a sweep's ids come back as saved. */

describe('the poll state', () => {
	it('leaves the lead ids out above their bound, and deletes are then not tracked', () => {
		const nodeData: IDataObject = {};
		const many = Array.from({ length: 50_000 }, () => randomUUID());
		const saved = POLL_STATE.save(nodeData, stateWith(1, new LeadVersions(), many));
		expect(packedBytes(packIds(many))).toBeGreaterThan(MAX_LEAD_ID_BYTES);
		expect(saved?.idsTracked).toBe(false);
		expect(JSON.stringify(nodeData).length).toBeLessThan(1_000);
		expect(POLL_STATE.read(nodeData)?.ids).toBeUndefined();

		POLL_STATE.save(nodeData, stateWith(1, new LeadVersions(), many.slice(0, 10)));
		expect(POLL_STATE.read(nodeData)?.ids?.found.size).toBe(10);
	});

	it('tells, across saves, which ids of the last whole sweep this sweep listed again, and which it found', () => {
		const nodeData: IDataObject = {};
		const swept = stateWith(1, new LeadVersions(), ['a1', 'b2', 'c3', 'd4']);
		swept.ids = swept.ids?.swept();
		POLL_STATE.save(nodeData, swept);
		const midway = POLL_STATE.read(nodeData) as PollState;
		expect(midway.ids?.ofLastSweep).toBe(true);
		midway.ids?.listed('b2');
		midway.ids?.listed('e5');
		POLL_STATE.save(nodeData, midway);
		const later = POLL_STATE.read(nodeData) as PollState;
		later.ids?.listed('d4');
		expect(later.ids?.unseen().sort()).toEqual(['a1', 'c3']);
		expect([...(later.ids?.found ?? [])]).toEqual(['e5']);
		const next = later.ids?.swept();
		expect(['b2', 'd4', 'e5', 'a1'].map((id) => next?.has(id))).toEqual([true, true, true, false]);
		expect(next?.unseen().sort()).toEqual(['b2', 'd4', 'e5']);
	});

	it('keep the ledger of changes run above the watermark bounded: the covered and the oldest beyond the capacity are forgotten, and the watermark rises over them', () => {
		const nodeData: IDataObject = {};
		const ran = new LeadVersions();
		const count = POLL_RAN_CAPACITY + 500;
		for (let at = 0; at < count; at++)
			ran.raise(leadKey(`lead-${at}`), { ms: 1_000 + at, exact: true });
		POLL_STATE.save(nodeData, stateWith(1_100, ran, []));
		const state = POLL_STATE.read(nodeData);
		// exactly the capacity is stored, and read back: the newest POLL_RAN_CAPACITY leads
		const leadIds = Array.from({ length: count }, (_, at) => `lead-${at}`);
		expect(leadsIn((nodeData.polling as IDataObject).ran, leadIds)).toBe(POLL_RAN_CAPACITY);
		expect(leadsIn(state?.ran.pack(), leadIds)).toBe(POLL_RAN_CAPACITY);
		const firstKept = count - POLL_RAN_CAPACITY;
		for (const at of [firstKept, firstKept + 1, count - 2])
			expect(state?.ran.get(leadKey(`lead-${at}`))?.ms).toBe(1_000 + at);
		expect(state?.ran.get(leadKey(`lead-${firstKept - 1}`))).toBeUndefined();
		expect(state?.since).toBe(1_000 + count - POLL_RAN_CAPACITY - 1);
		expect(state?.ran.get(leadKey(`lead-${count - 1}`))?.ms).toBe(1_000 + count - 1);
		expect(state?.ran.get(leadKey('lead-0'))).toBeUndefined();
		// the bytes: per lead its 6-byte key and, versions 1 ms apart, a 1-byte difference; the
		// first whole (2 bytes), as base64
		expect(String((nodeData.polling as IDataObject).ran).length).toBe(
			Math.ceil((POLL_RAN_CAPACITY * 7 + 1) / 3) * 4,
		);
	});
});
