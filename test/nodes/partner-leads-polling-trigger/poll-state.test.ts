import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { MAX_LEAD_ID_BYTES, packedBytes, packIds } from '../../../nodes/shared/changes/leadIds';
import { LEDGER_ENTRY_BYTES, LeadVersions, leadKey } from '../../../nodes/shared/changes/versions';
import { POLL_RAN_CAPACITY, POLL_STATE } from '../../../nodes/PartnerLeadsPollingTrigger/pollState';

/** Leads in a packed ledger as static data holds it: base64 of fixed-width binary entries. */
function entriesIn(packed: unknown): number {
	return Buffer.from(String(packed), 'base64').length / LEDGER_ENTRY_BYTES;
}

/** The polling trigger's state: its bounds hold. */

describe('the poll state', () => {
	it('leaves the lead ids out above their bound, and deletes are then not tracked', () => {
		const nodeData: IDataObject = {};
		const many = Array.from({ length: 50_000 }, () => randomUUID());
		const saved = POLL_STATE.save(nodeData, {
			since: 1,
			ran: new LeadVersions(),
			ids: many,
			readAtMs: 1,
			readRequests: 1,
		});
		expect(packedBytes(packIds(many))).toBeGreaterThan(MAX_LEAD_ID_BYTES);
		expect(saved?.idsTracked).toBe(false);
		expect(JSON.stringify(nodeData).length).toBeLessThan(1_000);
		expect(POLL_STATE.read(nodeData)?.ids).toBeUndefined();

		POLL_STATE.save(nodeData, {
			since: 1,
			ran: new LeadVersions(),
			ids: many.slice(0, 10),
			readAtMs: 1,
			readRequests: 1,
		});
		expect(POLL_STATE.read(nodeData)?.ids?.size).toBe(10);
	});

	it('keep the ledger of changes run above the watermark bounded: the covered and the oldest beyond the capacity are forgotten, and the watermark rises over them', () => {
		const nodeData: IDataObject = {};
		const ran = new LeadVersions();
		const count = POLL_RAN_CAPACITY + 500;
		for (let at = 0; at < count; at++)
			ran.raise(leadKey(`lead-${at}`), { ms: 1_000 + at, exact: true });
		POLL_STATE.save(nodeData, { since: 1_100, ran, ids: [], readAtMs: 1, readRequests: 1 });
		const state = POLL_STATE.read(nodeData);
		// exactly the capacity is stored, and read back: the newest POLL_RAN_CAPACITY leads
		expect(entriesIn((nodeData.polling as IDataObject).ran)).toBe(POLL_RAN_CAPACITY);
		expect(entriesIn(state?.ran.pack())).toBe(POLL_RAN_CAPACITY);
		const firstKept = count - POLL_RAN_CAPACITY;
		for (const at of [firstKept, firstKept + 1, count - 2])
			expect(state?.ran.get(leadKey(`lead-${at}`))?.ms).toBe(1_000 + at);
		expect(state?.ran.get(leadKey(`lead-${firstKept - 1}`))).toBeUndefined();
		expect(state?.since).toBe(1_000 + count - POLL_RAN_CAPACITY - 1);
		expect(state?.ran.get(leadKey(`lead-${count - 1}`))?.ms).toBe(1_000 + count - 1);
		expect(state?.ran.get(leadKey('lead-0'))).toBeUndefined();
		// the bound in bytes: POLL_RAN_CAPACITY entries of LEDGER_ENTRY_BYTES, as base64
		expect(String((nodeData.polling as IDataObject).ran).length).toBe(
			Math.ceil((POLL_RAN_CAPACITY * LEDGER_ENTRY_BYTES) / 3) * 4,
		);
	});
});
