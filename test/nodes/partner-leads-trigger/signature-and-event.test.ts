import { timingSafeEqual } from 'crypto';

import {
	parseLeadEvent,
	readLeadEvent,
	verifyLegacySignature,
	verifyV2Signature,
} from '../../../nodes/PartnerLeadsTrigger/delivery/verify';
import { signedDelivery } from '../../simulator';

// The real comparison, watched: which buffers each verdict was compared with.
jest.mock('crypto', () => {
	const actual = jest.requireActual<typeof import('crypto')>('crypto');
	return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

describe('signature', () => {
	const secret = 'whsec_unit';
	const delivery = signedDelivery(secret, 'lead-1', 'lead/update', '2026-01-02T03:04:05.678Z');
	const raw = Buffer.from(delivery.rawBody);

	it('verifies v2 over the raw bytes, refusing anything malformed', () => {
		const v2 = delivery.headers['x-svc-signature-v2'];
		expect(verifyV2Signature(raw, v2, secret)).toBe(true);
		expect(verifyV2Signature(raw, v2.toUpperCase(), secret)).toBe(true);
		expect(verifyV2Signature(raw, v2, 'other')).toBe(false);
		expect(verifyV2Signature(Buffer.from(`${delivery.rawBody} `), v2, secret)).toBe(false);
		for (const bad of [undefined, '', v2.slice(2), `${v2}00`, 'z'.repeat(64), `sha256=${v2}`]) {
			expect(verifyV2Signature(raw, bad, secret)).toBe(false);
		}
	});

	it('compares both signatures in constant time: crypto.timingSafeEqual over two 32-byte digests, right or wrong', () => {
		const compare = jest.mocked(timingSafeEqual);
		compare.mockClear();
		const v2 = delivery.headers['x-svc-signature-v2'];
		const wrongV2 = `${v2.slice(0, -1)}${v2.endsWith('0') ? '1' : '0'}`;
		expect(verifyV2Signature(raw, v2, secret)).toBe(true);
		expect(verifyV2Signature(raw, wrongV2, secret)).toBe(false);
		const event = parseLeadEvent(raw)!;
		const legacy = delivery.headers['x-svc-signature'];
		expect(verifyLegacySignature(event, legacy, secret)).toBe(true);
		expect(verifyLegacySignature({ ...event, id: 'lead-2' }, legacy, secret)).toBe(false);
		// every verdict, the wrong ones included, came from the constant-time comparison
		expect(compare).toHaveBeenCalledTimes(4);
		for (const [presented, expected] of compare.mock.calls) {
			expect([
				Buffer.byteLength(presented as Buffer),
				Buffer.byteLength(expected as Buffer),
			]).toEqual([32, 32]);
		}
	});

	it('verifies the legacy signature over id, timestamp, topic in alphabetical key order', () => {
		const event = parseLeadEvent(raw);
		expect(event).toBeDefined();
		expect(verifyLegacySignature(event!, delivery.headers['x-svc-signature'], secret)).toBe(true);
		expect(
			verifyLegacySignature(
				{ ...event!, id: 'lead-2' },
				delivery.headers['x-svc-signature'],
				secret,
			),
		).toBe(false);
	});

	it('reads only well-formed events', () => {
		for (const body of [
			'',
			'null',
			'[]',
			'{"id":"a","topic":"lead/create"}',
			'{"id":"","topic":"lead/create","timestamp":"t"}',
			'{"id":"a","topic":"payment/create","timestamp":"t"}',
			`{"id":"${'a'.repeat(201)}","topic":"lead/create","timestamp":"t"}`,
		]) {
			expect(parseLeadEvent(Buffer.from(body))).toBeUndefined();
		}
	});

	it('says what makes a body no lead event, field by field', () => {
		const read = (body: string) => readLeadEvent(Buffer.from(body));
		const event = { id: 'a', topic: 'lead/create', timestamp: 't' };
		expect(read(JSON.stringify(event))).toEqual({ event });
		expect(read('not json')).toEqual({ malformed: 'notJson' });
		expect(read('')).toEqual({ malformed: 'notJson' });
		for (const body of ['null', '[]', '"a"', '5'])
			expect(read(body)).toEqual({ malformed: 'notAnObject' });
		for (const id of [5, '', 'a'.repeat(201), null, ['a']])
			expect(read(JSON.stringify({ ...event, id }))).toEqual({ malformed: 'id' });
		for (const timestamp of [undefined, 1700000000000, '', 't'.repeat(65)])
			expect(read(JSON.stringify({ ...event, timestamp }))).toEqual({ malformed: 'timestamp' });
		for (const topic of ['payment/create', 'Lead/Create', undefined, 3])
			expect(read(JSON.stringify({ ...event, topic }))).toEqual({ malformed: 'topic' });
		expect(read(JSON.stringify({ ...event, id: 'a'.repeat(200) }))).toHaveProperty('event');
	});
});
