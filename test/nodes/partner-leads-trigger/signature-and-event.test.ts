import { parseLeadEvent } from '../../../nodes/PartnerLeadsTrigger/events';
import {
	verifyLegacySignature,
	verifyV2Signature,
} from '../../../nodes/PartnerLeadsTrigger/signature';
import { signedDelivery } from '../../simulator';

describe('signature', () => {
	const secret = 'whsec_unit';
	const delivery = signedDelivery(secret, 'lead-1', 'lead/update', '2026-01-02T03:04:05.678Z');
	const raw = Buffer.from(delivery.rawBody);

	it('verifies v2 over the raw bytes, in constant time, refusing anything malformed', () => {
		const v2 = delivery.headers['x-svc-signature-v2'];
		expect(verifyV2Signature(raw, v2, secret)).toBe(true);
		expect(verifyV2Signature(raw, v2.toUpperCase(), secret)).toBe(true);
		expect(verifyV2Signature(raw, v2, 'other')).toBe(false);
		expect(verifyV2Signature(Buffer.from(`${delivery.rawBody} `), v2, secret)).toBe(false);
		for (const bad of [undefined, '', v2.slice(2), `${v2}00`, 'z'.repeat(64), `sha256=${v2}`]) {
			expect(verifyV2Signature(raw, bad, secret)).toBe(false);
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
});
