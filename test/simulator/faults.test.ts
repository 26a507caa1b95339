import { startSimulator } from './index';
import { apiClient, expectError, send, tokenFor, validLead } from './test-helpers';
import type { Simulator } from './types';

/** Spec section 7 (429) and 8 (limits): rate limiting, injected faults, and request statistics. */

let sim: Simulator;
let client: ReturnType<typeof apiClient>;

beforeAll(async () => {
	sim = await startSimulator({ personality: 'default', seed: 9 });
});
afterAll(() => sim.close());
beforeEach(async () => {
	sim.control.reset();
	client = apiClient(sim, await tokenFor(sim));
	sim.control.resetStats();
});

describe('per-key rate limit', () => {
	it('answers 429 rate_limited with Retry-After once the bucket is empty, per key', async () => {
		sim.control.setRateLimit(3);
		// Sent together, so the bucket cannot refill in between even on a slow machine.
		const answers = await Promise.all([1, 2, 3, 4].map(() => client.api('GET', '/leads')));
		expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429]);
		const limited = answers.find((a) => a.status === 429)!;
		expectError(limited, 429, 'rate_limited', /3 requests per second/);
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		// Another key has its own bucket.
		const other = apiClient(sim, await tokenFor(sim, sim.control.createKey()));
		expect((await other.api('GET', '/leads')).status).toBe(200);
		sim.control.setRateLimit(null);
		expect((await client.api('GET', '/leads')).status).toBe(200);
	});

	it('can be configured at start', async () => {
		const limited = await startSimulator({
			personality: 'default',
			seed: 10,
			rateLimitPerSecond: 1,
		});
		try {
			const c = apiClient(limited, await tokenFor(limited));
			expect((await c.api('GET', '/leads')).status).toBe(200);
			expect((await c.api('GET', '/leads')).status).toBe(429);
		} finally {
			await limited.close();
		}
	});
});

describe('injected faults', () => {
	it('rate429: 429 with the configured Retry-After (default 0)', async () => {
		sim.control.setFaults('GET /leads', { rate429: 1, retryAfterSeconds: 2 });
		const answer = await client.api('GET', '/leads');
		expectError(answer, 429, 'rate_limited', /retry after 2 seconds/);
		expect(answer.headers.get('retry-after')).toBe('2');
		sim.control.setFaults('GET /leads', { rate429: 1 });
		expect((await client.api('GET', '/leads')).headers.get('retry-after')).toBe('0');
		// Only that route is affected.
		expect((await client.api('GET', '/schema/lead')).status).toBe(200);
	});

	it('passFirst: the first requests after setting pass untouched, the faults apply after them', async () => {
		sim.control.setFaults('GET /leads', { rate429: 1, passFirst: 2 });
		const statuses: number[] = [];
		for (let at = 0; at < 4; at++) statuses.push((await client.api('GET', '/leads')).status);
		expect(statuses).toEqual([200, 200, 429, 429]);
		sim.control.setFaults('GET /leads', { rate429: 1, passFirst: 1 });
		expect((await client.api('GET', '/leads')).status).toBe(200);
		expect((await client.api('GET', '/leads')).status).toBe(429);
		expect(() => sim.control.setFaults('GET /leads', { passFirst: -1 })).toThrow(/passFirst/);
	});

	it('rate5xx: a 5xx before the handler, nothing is created', async () => {
		sim.control.setFaults('POST /leads', { rate5xx: 1 });
		const answer = await client.api('POST', '/leads', validLead(sim));
		expect([500, 502, 503]).toContain(answer.status);
		expect(answer.body.error.code).toMatch(/^(internal_error|bad_gateway|service_unavailable)$/);
		expect(answer.body.error.message).toMatch(/simulated fault/);
		expect(sim.control.listLeads()).toHaveLength(0);
	});

	it('rate5xxAfterEffect: the lead IS created but the answer is a 502/503', async () => {
		sim.control.setFaults('POST /leads', { rate5xxAfterEffect: 1 });
		const answer = await client.api('POST', '/leads', validLead(sim));
		expect([502, 503]).toContain(answer.status);
		expect(answer.body.error.message).toMatch(/may have been applied/);
		expect(answer.body.data).toBeUndefined();
		expect(sim.control.listLeads()).toHaveLength(1);
	});

	it('latencyMs: delays the answer of that route only', async () => {
		sim.control.setFaults('GET /schema/lead', { latencyMs: 300 });
		// ordering, not a stopwatch: the delayed answer comes after one asked for later
		const answered: string[] = [];
		const delayed = client
			.api('GET', '/schema/lead')
			.then((answer) => answered.push(`schema ${answer.status}`));
		const prompt = client
			.api('GET', '/leads')
			.then((answer) => answered.push(`leads ${answer.status}`));
		await Promise.all([delayed, prompt]);
		expect(answered).toEqual(['leads 200', 'schema 200']);
	});

	it('dropRate: the socket is destroyed without an answer, and nothing changes', async () => {
		sim.control.setFaults('POST /leads', { dropRate: 1 });
		await expect(client.api('POST', '/leads', validLead(sim))).rejects.toThrow();
		expect(sim.control.listLeads()).toHaveLength(0);
		expect(sim.control.stats().byRoute['POST /leads']).toBe(1);
		expect(sim.control.stats().statusesByRoute['POST /leads']).toBeUndefined();
	});

	it("'*' applies to every route, including the token endpoint; a route's own faults win", async () => {
		sim.control.setFaults('*', { rate429: 1 });
		sim.control.setFaults('GET /schema/lead', { rate429: 0 });
		expect((await client.api('GET', '/leads')).status).toBe(429);
		expect((await client.webhooks('GET')).status).toBe(429);
		expect((await client.api('GET', '/schema/lead')).status).toBe(200);
		await expect(tokenFor(sim)).rejects.toThrow(/429/);
		sim.control.clearFaults();
		expect((await client.api('GET', '/leads')).status).toBe(200);
	});

	it("setFaults(route, null) removes that route's faults", async () => {
		sim.control.setFaults('GET /leads', { rate5xx: 1 });
		sim.control.setFaults('GET /leads', null);
		expect((await client.api('GET', '/leads')).status).toBe(200);
	});

	it('throws the same dice for the same seed', async () => {
		const pattern = async () => {
			const seeded = await startSimulator({ personality: 'default', seed: 1234 });
			try {
				const c = apiClient(seeded, await tokenFor(seeded));
				seeded.control.setFaults('GET /leads', { rate5xx: 0.5 });
				const statuses: number[] = [];
				for (let i = 0; i < 16; i++) statuses.push((await c.api('GET', '/leads')).status);
				return statuses;
			} finally {
				await seeded.close();
			}
		};
		const first = await pattern();
		expect(first.some((s) => s === 200)).toBe(true);
		expect(first.some((s) => s >= 500)).toBe(true);
		expect(await pattern()).toEqual(first);
	});

	it('refuses an unknown route key and rates outside 0..1', () => {
		expect(() => sim.control.setFaults('GET /nothing', { rate5xx: 1 })).toThrow(
			/Unknown route key/,
		);
		expect(() => sim.control.setFaults('GET /leads', { rate5xx: 2 })).toThrow(/between 0 and 1/);
	});
});

describe('stats', () => {
	it('counts requests and statuses per route, token requests and tokens issued', async () => {
		await client.api('GET', '/leads');
		await client.api('POST', '/leads', validLead(sim));
		await client.api('POST', '/leads', {});
		await client.api('GET', '/leads/abc');
		await client.webhooks('GET');
		await tokenFor(sim);
		await send(`${sim.authUrl}/oauth/token`, {
			method: 'POST',
			body: { grant_type: 'client_credentials' },
		});
		const stats = sim.control.stats();
		expect(stats.tokenRequests).toBe(2);
		expect(stats.tokensIssued).toBe(1);
		expect(stats.byRoute).toEqual({
			'GET /leads': 1,
			'POST /leads': 2,
			'GET /leads/:id': 1,
			'GET /subscriptions': 1,
			'POST /oauth/token': 2,
		});
		expect(stats.statusesByRoute['POST /leads']).toEqual({ 201: 1, 400: 1 });
		expect(stats.statusesByRoute['GET /leads/:id']).toEqual({ 404: 1 });
		sim.control.resetStats();
		expect(sim.control.stats()).toEqual({
			tokenRequests: 0,
			tokensIssued: 0,
			byRoute: {},
			statusesByRoute: {},
		});
	});

	it('does not count control API calls', async () => {
		await send(`${sim.controlUrl}/stats`);
		expect(sim.control.stats().byRoute).toEqual({});
	});
});
