import { DEFAULT_PERSONALITY, startSimulator, type Personality } from './index';
import { apiClient, send, startReceiver, tokenFor, validLead, type Receiver } from './test-helpers';
import type { Simulator } from './types';

/**
 * Personalities (personality.ts), the answers beside paging (personality.test.ts): schema
 * picklists, PATCH and DELETE answers, auth failure status, error bodies, ids, timestamps,
 * Retry-After, and that faults and deliveries follow them. Over loopback HTTP.
 */

const started: Simulator[] = [];
const receivers: Receiver[] = [];

async function simWith(changes: Partial<Personality>) {
	const personality: Personality = { ...DEFAULT_PERSONALITY, name: 'test', ...changes };
	const sim = await startSimulator({
		seed: 21,
		allowInsecureLoopbackWebhooks: true,
		delivery: { baseDelayMs: 5 },
		personality,
	});
	started.push(sim);
	return { sim, client: apiClient(sim, await tokenFor(sim)) };
}

afterEach(async () => {
	await Promise.all([
		...started.splice(0).map((sim) => sim.close()),
		...receivers.splice(0).map((r) => r.close()),
	]);
});

const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('picklistShape', () => {
	const platform = [
		{ value: 'hubspot', label: 'HubSpot' },
		{ value: 'salesforce', label: 'Salesforce' },
		{ value: 'pipedrive', label: 'Pipedrive' },
		{ value: 'other', label: 'Other' },
	];
	it.each([
		['picklistValues-objects', 'picklistValues', platform],
		['options-strings', 'options', platform.map((o) => o.value)],
		['values-objects', 'values', platform],
		['options-objects', 'options', platform],
	] as const)(
		'%s: the options sit under %s, and the values still validate',
		async (shape, key, expected) => {
			const { sim, client } = await simWith({ picklistShape: shape });
			const fields = (await client.api('GET', '/schema/lead')).body.data.unifiedFields as Array<
				Record<string, unknown>
			>;
			const entry = fields.find((field) => field.fieldId === 'platform') ?? {};
			expect(entry[key]).toEqual(expected);
			for (const other of ['picklistValues', 'options', 'values'].filter((k) => k !== key))
				expect(entry[other]).toBeUndefined();
			expect(fields.find((field) => field.fieldId === 'email')).toEqual(
				expect.not.objectContaining({ options: expect.anything() }),
			);
			expect(
				(await client.api('POST', '/leads', validLead(sim, { platform: 'pipedrive' }))).status,
			).toBe(201);
			expect(
				(await client.api('POST', '/leads', validLead(sim, { platform: 'nope' }))).status,
			).toBe(400);
		},
	);
});

describe('patchAnswer', () => {
	async function patched(answer: Personality['patchAnswer']) {
		const { sim, client } = await simWith({ patchAnswer: answer });
		const created = (
			await client.api(
				'POST',
				'/leads',
				validLead(sim, { notes: 'n', customFields: { industry: 'saas', employeeCount: 5 } }),
			)
		).body.data;
		const result = await client.api('PATCH', `/leads/${created.id}`, {
			value: 99,
			notes: null,
			customFields: { employeeCount: 50 },
		});
		const stored = sim.control.getLead(created.id);
		expect(stored).toEqual(
			expect.objectContaining({ value: 99, customFields: { industry: 'saas', employeeCount: 50 } }),
		);
		expect(stored?.notes).toBeUndefined();
		return { result, stored };
	}

	it('full: the whole updated lead', async () => {
		const { result, stored } = await patched('full');
		expect([result.status, result.body.data]).toEqual([200, stored]);
	});

	it('partial: id, the changed fields (removed ones as null), changed custom fields, updatedAt', async () => {
		const { result, stored } = await patched('partial');
		expect(result.status).toBe(200);
		expect(result.body.data).toEqual({
			id: stored?.id,
			value: 99,
			notes: null,
			customFields: { employeeCount: 50 },
			updatedAt: stored?.updatedAt,
		});
	});

	it.each([
		['empty', 200],
		['noContent', 204],
	] as const)('%s: %i with no body at all', async (answer, status) => {
		const { result } = await patched(answer);
		expect([result.status, result.text]).toEqual([status, '']);
	});
});

describe('deleteAnswer', () => {
	it.each([
		['ok', 200],
		['noContent', 204],
	] as const)('%s: %i, and the subscription is gone', async (answer, status) => {
		const { sim, client } = await simWith({ deleteAnswer: answer });
		const id = (
			await client.webhooks('POST', '', { topic: 'lead/create', url: 'http://127.0.0.1:9/hook' })
		).body.data.id;
		const result = await client.webhooks('DELETE', `/${id}`);
		expect(result.status).toBe(status);
		if (answer === 'ok') expect(result.body.data).toEqual({ id, deleted: true });
		else expect(result.text).toBe('');
		expect(sim.control.listSubscriptions()).toEqual([]);
		expect((await client.webhooks('DELETE', `/${id}`)).status).toBe(404);
	});
});

describe('authFailureStatus 403', () => {
	it('answers every authentication failure with 403 (API and token endpoint) and no WWW-Authenticate', async () => {
		const { sim, client } = await simWith({ authFailureStatus: 403 });
		const lead = `${sim.url}/1.0/api/company/${sim.companyId}/leads`;
		const answers = [
			await send(lead),
			await send(lead, { headers: { authorization: 'Bearer nope' } }),
			await send(lead, { headers: { authorization: `Bearer ${sim.defaultKey.clientSecret}` } }),
			await send(`${sim.authUrl}/oauth/token`, {
				method: 'POST',
				body: {
					grant_type: 'client_credentials',
					client_id: sim.defaultKey.clientId,
					client_secret: 'wrong',
					audience: sim.url,
				},
			}),
		];
		sim.control.expireTokens();
		answers.push(await client.api('GET', '/leads'));
		expect(answers.map((a) => [a.status, a.body.error.code])).toEqual([
			[403, 'missing_authorization'],
			[403, 'invalid_token'],
			[403, 'client_secret_as_bearer'],
			[403, 'invalid_client'],
			[403, 'token_expired'],
		]);
		for (const answer of answers) expect(answer.headers.get('www-authenticate')).toBeNull();
		// Other errors keep their status.
		const fresh = apiClient(sim, await tokenFor(sim));
		expect((await fresh.api('GET', '/leads?limit=0')).status).toBe(400);
		expect((await fresh.api('GET', '/leads/unknown')).status).toBe(404);
	});
});

describe('errorBodies', () => {
	it('text: text/plain "<code>: <message>" for handler errors and injected faults', async () => {
		const { sim, client } = await simWith({ errorBodies: 'text' });
		const missing = await client.api('GET', '/leads/abc');
		expect([missing.status, missing.headers.get('content-type'), missing.text]).toEqual([
			404,
			'text/plain; charset=utf-8',
			'not_found: Lead "abc" not found',
		]);
		sim.control.setFaults('GET /leads', { rate5xx: 1 });
		const fault = await client.api('GET', '/leads');
		expect(fault.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(fault.text).toMatch(
			/^(internal_error|bad_gateway|service_unavailable): .*simulated fault/,
		);
	});

	it('html: a text/html page with the escaped message, also when an applied create loses its answer', async () => {
		const { sim, client } = await simWith({ errorBodies: 'html' });
		const missing = await client.api('GET', '/leads/%3Cb%3E');
		expect(missing.status).toBe(404);
		expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
		expect(missing.text).toMatch(/^<!DOCTYPE html>/);
		expect(missing.text).toContain('<p>Lead &#34;&#60;b&#62;&#34; not found</p>');
		sim.control.setFaults('POST /leads', { rate5xxAfterEffect: 1 });
		const lost = await client.api('POST', '/leads', validLead(sim));
		expect([502, 503]).toContain(lost.status);
		expect(lost.text).toMatch(/<title>50[23] (bad_gateway|service_unavailable)<\/title>/);
		expect(sim.control.listLeads()).toHaveLength(1);
	});
});

describe('ids and timestamps', () => {
	it.each([
		['hex24', /^[0-9a-f]{24}$/],
		['uuid', UUID],
		['numeric', /^[1-9]\d*$/],
	] as const)('%s: lead, seeded lead and subscription ids', async (ids, pattern) => {
		const { sim, client } = await simWith({ ids });
		const lead = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const sub = (
			await client.webhooks('POST', '', { topic: 'lead/create', url: 'http://127.0.0.1:9/hook' })
		).body.data;
		const seeded = sim.control.seedLeads(3);
		for (const id of [lead.id, sub.id, ...seeded.map((l) => l.id)]) expect(id).toMatch(pattern);
		expect((await client.api('GET', `/leads/${lead.id}`)).body.data.id).toBe(lead.id);
	});

	it.each([
		['millis', ISO_MILLIS],
		['seconds', ISO_SECONDS],
	] as const)(
		'%s: createdAt, updatedAt (still moving forward) and webhook timestamps',
		async (timestamps, pattern) => {
			const { sim, client } = await simWith({ timestamps });
			const receiver = await startReceiver();
			receivers.push(receiver);
			await client.webhooks('POST', '', { topic: 'lead/update', url: receiver.url });
			const lead = (await client.api('POST', '/leads', validLead(sim))).body.data;
			await client.api('PATCH', `/leads/${lead.id}`, { value: 1 });
			const second = (await client.api('GET', `/leads/${lead.id}`)).body.data.updatedAt;
			await client.api('PATCH', `/leads/${lead.id}`, { value: 2 });
			const third = (await client.api('GET', `/leads/${lead.id}`)).body.data.updatedAt;
			expect([lead.createdAt, lead.updatedAt, second, third]).toEqual(
				Array(4).fill(expect.stringMatching(pattern)),
			);
			expect(Date.parse(third)).toBeGreaterThan(Date.parse(second));
			await sim.control.waitForDeliveries(3000);
			const bodies = (await receiver.waitFor(2)).map((r) => JSON.parse(r.raw.toString('utf8')));
			for (const body of bodies) expect(body.timestamp).toMatch(pattern);
			expect(sim.control.deliveries()[0].timestamp).toMatch(pattern);
		},
	);
});

describe('retryAfter', () => {
	it('seconds: delay-seconds on injected 429s and the rate limit', async () => {
		const { sim, client } = await simWith({ retryAfter: 'seconds' });
		sim.control.setFaults('GET /leads', { rate429: 1, retryAfterSeconds: 30 });
		const answer = await client.api('GET', '/leads');
		expect([answer.status, answer.headers.get('retry-after')]).toEqual([429, '30']);
		sim.control.clearFaults();
		sim.control.setRateLimit(1);
		const answers = [await client.api('GET', '/leads'), await client.api('GET', '/leads')];
		expect(answers.map((a) => a.status)).toEqual([200, 429]);
		expect(answers[1].headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
	});

	it('httpDate: an HTTP date that many seconds from now, on injected 429s and the rate limit', async () => {
		const { sim, client } = await simWith({ retryAfter: 'httpDate' });
		sim.control.setFaults('GET /leads', { rate429: 1, retryAfterSeconds: 30 });
		const before = Date.now();
		const injected = (await client.api('GET', '/leads')).headers.get('retry-after') ?? '';
		expect(injected).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
		expect(Date.parse(injected) - before).toBeGreaterThanOrEqual(29_000);
		expect(Date.parse(injected) - Date.now()).toBeLessThanOrEqual(30_000);
		sim.control.clearFaults();
		sim.control.setRateLimit(1);
		const answers = [await client.api('GET', '/leads'), await client.api('GET', '/leads')];
		expect(answers.map((a) => a.status)).toEqual([200, 429]);
		expect(Date.parse(answers[1].headers.get('retry-after') ?? '')).toBeGreaterThan(before);
	});
});
