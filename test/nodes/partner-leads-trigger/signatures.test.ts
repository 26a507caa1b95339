import { randomBytes } from 'node:crypto';

import { TriggerHost } from '../../harness/webhooks';
import { LogCapture } from '../../security/capture';
import type { Lead } from '../../simulator';
import type { Setup } from './helpers';
import { ALL_TOPICS, executedEvents, hmacHex, post, setUp, signed, storedSecret } from './helpers';

/**
 * Deliveries posted by hand to the trigger's URL, over real HTTP with real raw bodies:
 * only what a stored signing secret vouches for starts an execution.
 */

function without(headers: Record<string, string>, ...names: string[]): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

describe('PartnerLeadsTrigger delivery verification', () => {
	let setup: Setup;
	let lead: Lead;
	let url: string;
	let secret: (topic: 'lead/create' | 'lead/update' | 'lead/delete') => string;

	beforeEach(async () => {
		setup = await setUp({ events: ALL_TOPICS });
		await setup.host.activate();
		lead = setup.sim.control.seedLeads([
			{ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
		])[0];
		url = setup.host.webhookUrl();
		secret = (topic) => storedSecret(setup, topic);
	});

	afterEach(async () => {
		await setup.close();
	});

	async function settled() {
		await setup.host.settle();
		expect(setup.host.crashes).toEqual([]);
		expect(setup.host.statuses()[500]).toBeUndefined();
	}

	it('accepts a correctly signed delivery and outputs the event with the fetched lead', async () => {
		const delivery = signed(secret('lead/create'), lead.id, 'lead/create');
		expect(await post(url, delivery.rawBody, delivery.headers)).toBe(200);
		await settled();
		expect(setup.host.executions).toHaveLength(1);
		const [item] = setup.host.executions[0].items;
		expect(item.json.event).toEqual(JSON.parse(delivery.rawBody));
		expect(item.json.lead).toMatchObject({ id: lead.id, firstName: 'Grace', lastName: 'Hopper' });
	});

	it('answers 401 and starts nothing for a body changed by one byte, a foreign secret, a missing header', async () => {
		const delivery = signed(secret('lead/create'), lead.id, 'lead/create');
		const lastHex = delivery.rawBody.indexOf(lead.id) + lead.id.length - 1;
		const flipped =
			delivery.rawBody.slice(0, lastHex) +
			(delivery.rawBody[lastHex] === 'a' ? 'b' : 'a') +
			delivery.rawBody.slice(lastHex + 1);
		expect(flipped).toHaveLength(delivery.rawBody.length);
		expect(await post(url, flipped, delivery.headers)).toBe(401);

		const foreign = signed(
			`whsec_${randomBytes(24).toString('base64url')}`,
			lead.id,
			'lead/create',
		);
		expect(await post(url, foreign.rawBody, foreign.headers)).toBe(401);

		expect(
			await post(
				url,
				delivery.rawBody,
				without(delivery.headers, 'x-svc-signature-v2', 'x-svc-signature'),
			),
		).toBe(401);

		await settled();
		expect(setup.host.executions).toHaveLength(0);
		expect(setup.host.statuses()).toEqual({ 401: 3 });
	});

	it('refuses a legacy-only delivery unless Accept Legacy Signature is on', async () => {
		const delivery = signed(secret('lead/update'), lead.id, 'lead/update');
		const legacyOnly = without(delivery.headers, 'x-svc-signature-v2');
		expect(await post(url, delivery.rawBody, legacyOnly)).toBe(401);
		await settled();
		expect(setup.host.executions).toHaveLength(0);

		// the same workflow with the option on (n8n reloads the workflow on save)
		const restart = setup.host.persisted({
			events: ALL_TOPICS,
			options: { acceptLegacySignature: true },
		});
		await setup.host.close();
		setup.host = await TriggerHost.start(setup.harness, restart);
		await setup.host.activate();
		expect(await post(url, delivery.rawBody, legacyOnly)).toBe(200);
		await settled();
		expect(setup.host.executions).toHaveLength(1);
		expect(setup.host.executions[0].items[0].json.lead).toMatchObject({ id: lead.id });

		// legacy covers id, topic, timestamp; a forged legacy signature is still refused,
		// and so is a delivery whose v2 signature is wrong, whatever its legacy one says
		const forged = { ...legacyOnly, 'x-svc-signature': hmacHex('not-the-secret', 'x') };
		expect(await post(url, delivery.rawBody, forged)).toBe(401);
		const other = signed(secret('lead/update'), lead.id, 'lead/update', '2030-01-01T00:00:00.000Z');
		const badV2 = {
			...other.headers,
			'x-svc-signature-v2': hmacHex('not-the-secret', other.rawBody),
		};
		expect(await post(url, other.rawBody, badV2)).toBe(401);
		await settled();
		expect(setup.host.executions).toHaveLength(1);
	});

	it('never crashes or answers 500 on garbage bodies and headers', async () => {
		const good = signed(secret('lead/create'), lead.id, 'lead/create');
		const cases: Array<[string | Buffer, Record<string, string>]> = [
			['', { 'content-type': 'application/json' }],
			['not json', { 'content-type': 'application/json' }],
			[
				'not json',
				{
					'content-type': 'text/plain',
					'x-svc-signature-v2': hmacHex(secret('lead/create'), 'not json'),
				},
			],
			[
				'[1,2,3]',
				{
					'content-type': 'application/json',
					'x-svc-signature-v2': hmacHex(secret('lead/create'), '[1,2,3]'),
				},
			],
			[
				'{"id":5,"topic":"lead/create"}',
				{
					'content-type': 'application/json',
					'x-svc-signature-v2': hmacHex(secret('lead/create'), '{"id":5,"topic":"lead/create"}'),
				},
			],
			[
				'{"id":"x","topic":"payment/create","timestamp":"t"}',
				{ 'content-type': 'application/json', 'x-svc-signature': 'zz' },
			],
			[
				randomBytes(512),
				{ 'content-type': 'application/octet-stream', 'x-svc-signature-v2': 'ab'.repeat(32) },
			],
			[good.rawBody, { ...good.headers, 'x-svc-signature-v2': 'g'.repeat(64) }],
			[
				good.rawBody,
				{ ...good.headers, 'x-svc-signature-v2': good.headers['x-svc-signature-v2'].slice(0, 63) },
			],
			[
				good.rawBody,
				{ ...good.headers, 'x-svc-signature-v2': `${good.headers['x-svc-signature-v2']}00` },
			],
			[good.rawBody, { ...good.headers, 'x-svc-signature-v2': 'x'.repeat(8000) }],
			[
				good.rawBody,
				{ 'content-type': 'application/json; charset=utf-16', 'x-svc-signature-v2': 'ab' },
			],
		];
		const statuses: number[] = [];
		for (const [body, headers] of cases) statuses.push(await post(url, body, headers));
		// a repeated signature header arrives joined ("a, b"): not a signature
		const repeated = new Headers({ 'content-type': 'application/json' });
		repeated.append('x-svc-signature-v2', good.headers['x-svc-signature-v2']);
		repeated.append('x-svc-signature-v2', good.headers['x-svc-signature-v2']);
		const response = await fetch(url, { method: 'POST', body: good.rawBody, headers: repeated });
		statuses.push(response.status);
		await settled();
		// n8n itself answers 422 to a JSON body it cannot decode, before the node runs; the three
		// bodies signed with a secret of this trigger are no lead events: 200, nothing runs
		expect(statuses).toEqual([401, 422, 200, 200, 200, 401, 401, 401, 401, 401, 401, 422, 401]);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('answers a correctly signed body that is no lead event 200, naming what is wrong, and runs nothing: a retry would carry the same bytes', async () => {
		const capture = new LogCapture();
		const secretOf = secret('lead/create');
		const timestamp = new Date().toISOString();
		const body = (event: unknown) => JSON.stringify(event);
		const cases: Array<{ raw: string; reason: string; what: RegExp }> = [
			{ raw: body({ id: 42, topic: 'lead/create', timestamp }), reason: 'id', what: /its id/ },
			{
				raw: body({ id: lead.id, topic: 'payment/create', timestamp }),
				reason: 'topic',
				what: /its topic is none of lead\/create, lead\/update and lead\/delete/,
			},
			{ raw: body({ id: lead.id, topic: 'lead/create' }), reason: 'timestamp', what: /timestamp/ },
			{ raw: body([lead.id]), reason: 'notAnObject', what: /not a JSON object/ },
			// a lead event, signed with the secret of another topic's subscription
			{
				raw: body({ id: lead.id, topic: 'lead/update', timestamp }),
				reason: 'otherTopic',
				what: /not the one of the subscription that signed it/,
			},
		];
		capture.start();
		try {
			for (const { raw, reason } of cases) {
				const response = await fetch(url, {
					method: 'POST',
					body: raw,
					headers: {
						'content-type': 'application/json',
						'x-svc-signature-v2': hmacHex(secretOf, raw),
					},
				});
				expect({ status: response.status, body: (await response.json()) as unknown }).toEqual({
					status: 200,
					body: {
						received: true,
						ignored: 'not a lead event',
						reason,
						message: expect.stringMatching(
							/^Signed by this trigger's lead\/create subscription, but not a lead event: /,
						),
					},
				});
			}
			await settled();
		} finally {
			capture.stop();
		}
		expect(setup.host.executions).toHaveLength(0);
		const warnings = capture.records
			.filter((record) => record.channel === 'n8n logger.warn')
			.map((record) => String(record.args[0]));
		expect(warnings).toEqual(
			cases.map(({ what }) =>
				expect.stringMatching(
					new RegExp(
						`ignored a delivery signed by its lead/create subscription that is not a lead event: .*${what.source}`,
					),
				),
			),
		);
		// what is wrong, never the body's values
		const logged = JSON.stringify(capture.records.map((record) => record.args));
		expect(logged).not.toContain(lead.id);
		expect(logged).not.toContain(timestamp);

		// the same bodies unsigned, or signed by no subscription of this trigger, are still refused
		for (const { raw } of cases) {
			expect(await post(url, raw, { 'content-type': 'application/json' })).toBe(401);
			expect(
				await post(url, raw, {
					'content-type': 'application/json',
					'x-svc-signature-v2': hmacHex('not-the-secret', raw),
				}),
			).toBe(401);
		}
		await settled();
		expect(setup.host.executions).toHaveLength(0);
	});

	it('acknowledges an authentic delivery for a topic that is not selected, without an execution', async () => {
		// The workflow now listens to updates only, and a create delivery arrives before the
		// new activation has removed the old create subscription (its secret still stored).
		const restart = setup.host.persisted({ events: ['lead/update'] });
		await setup.host.close();
		setup.host = await TriggerHost.start(setup.harness, restart);
		const delivery = signed(secret('lead/create'), lead.id, 'lead/create');
		setup.host.registerRoute();
		expect(await post(url, delivery.rawBody, delivery.headers)).toBe(200);
		await settled();
		expect(executedEvents(setup.host)).toEqual([]);
	});
});
