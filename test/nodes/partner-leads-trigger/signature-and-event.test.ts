import {
	parseLeadEvent,
	readLeadEvent,
	verifyLegacySignature,
	verifyV2Signature,
} from '../../../nodes/PartnerLeadsTrigger/delivery/verify';
import { signedDelivery } from '../../simulator';

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

	it('verifies the legacy signature over id, timestamp, topic in alphabetical key order, refusing anything else', () => {
		const event = parseLeadEvent(raw)!;
		const legacy = delivery.headers['x-svc-signature'];
		expect(verifyLegacySignature(event, legacy, secret)).toBe(true);
		expect(verifyLegacySignature(event, legacy.toUpperCase(), secret)).toBe(true);
		expect(verifyLegacySignature(event, legacy, 'other')).toBe(false);
		for (const changed of [
			{ id: 'lead-2' },
			{ timestamp: '2026-01-02T03:04:05.679Z' },
			{ topic: 'lead/create' as const },
		]) {
			expect(verifyLegacySignature({ ...event, ...changed }, legacy, secret)).toBe(false);
		}
		// the v2 signature is over other bytes: it is no legacy signature
		expect(verifyLegacySignature(event, delivery.headers['x-svc-signature-v2'], secret)).toBe(
			false,
		);
		for (const bad of [undefined, '', legacy.slice(2), `${legacy}00`, 'z'.repeat(64)]) {
			expect(verifyLegacySignature(event, bad, secret)).toBe(false);
		}
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
