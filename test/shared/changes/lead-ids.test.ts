import { randomBytes, randomUUID } from 'node:crypto';

import { packedBytes, packIds, unpackIds } from '../../../nodes/shared/changes/leadIds';

/** Lead ids packed by their form come back exactly, and small. */

describe('lead ids packed for static data', () => {
	it('come back exactly, whatever their form', () => {
		const ids = [
			randomBytes(12).toString('hex'),
			randomUUID(),
			randomUUID().toUpperCase(),
			'12345',
			'0042',
			'abc',
			'lead_9',
			randomBytes(5).toString('hex'),
			'ABCDEF',
		];
		expect([...unpackIds(packIds(ids))].sort()).toEqual([...ids].sort());
	});

	it('take 16 bytes per 24-hex id and about 21 per UUID', () => {
		const hex = Array.from({ length: 1_000 }, () => randomBytes(12).toString('hex'));
		const uuids = Array.from({ length: 1_000 }, () => randomUUID());
		expect(Math.round(packedBytes(packIds(hex)) / 1_000)).toBe(16);
		expect(Math.round(packedBytes(packIds(uuids)) / 1_000)).toBe(21);
	});
});
