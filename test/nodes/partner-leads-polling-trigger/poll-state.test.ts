import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { MAX_LEAD_ID_BYTES, packedBytes, packIds } from '../../../nodes/shared/changes/leadIds';
import { LeadVersions, leadKey } from '../../../nodes/shared/changes/versions';
import {
	MAX_RAN_BYTES,
	POLL_RAN_CAPACITY,
	POLL_STATE,
} from '../../../nodes/PartnerLeadsPollingTrigger/pollState';

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
		expect(state?.ran.size).toBe(POLL_RAN_CAPACITY);
		expect(state?.since).toBe(1_000 + count - POLL_RAN_CAPACITY - 1);
		expect(state?.ran.get(leadKey(`lead-${count - 1}`))?.ms).toBe(1_000 + count - 1);
		expect(state?.ran.get(leadKey('lead-0'))).toBeUndefined();
		expect(String((nodeData.polling as IDataObject).ran).length).toBeLessThanOrEqual(MAX_RAN_BYTES);
	});
});
