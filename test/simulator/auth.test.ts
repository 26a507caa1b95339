import { startSimulator } from './index';
import {
	apiClient,
	expectError,
	send,
	sleep,
	startReceiver,
	tokenFor,
	type Receiver,
} from './test-helpers';
import type { Simulator } from './types';

/** Spec section 5 (authentication), section 7 (401/403 rows) and section 9.2 (environments). */

let sim: Simulator;
let receiver: Receiver;

beforeAll(async () => {
	sim = await startSimulator({
		personality: 'default',
		seed: 1,
		allowInsecureLoopbackWebhooks: true,
		delivery: { baseDelayMs: 5 },
	});
	receiver = await startReceiver();
});
afterAll(async () => {
	await sim.close();
	await receiver.close();
});
beforeEach(() => sim.control.reset());

function tokenRequest(body: unknown, contentType = 'application/json') {
	return send(`${sim.authUrl}/oauth/token`, {
		method: 'POST',
		rawBody: typeof body === 'string' ? body : JSON.stringify(body),
		headers: { 'content-type': contentType },
	});
}

function credentials(overrides: Record<string, unknown> = {}) {
	return {
		grant_type: 'client_credentials',
		client_id: sim.defaultKey.clientId,
		client_secret: sim.defaultKey.clientSecret,
		audience: sim.url,
		...overrides,
	};
}

describe('token exchange', () => {
	it('issues a Bearer token with an expiry for the production audience', async () => {
		const answer = await tokenRequest(credentials());
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual({
			access_token: expect.any(String),
			token_type: 'Bearer',
			expires_in: 3600,
		});
		expect(answer.body.access_token).not.toBe(sim.defaultKey.clientSecret);
		expect(answer.headers.get('cache-control')).toBe('no-store');
	});

	it('accepts the non-production audience and a trailing slash', async () => {
		expect((await tokenRequest(credentials({ audience: sim.devUrl }))).status).toBe(200);
		expect((await tokenRequest(credentials({ audience: `${sim.url}/` }))).status).toBe(200);
	});

	it('refuses a non-JSON content type', async () => {
		const form = new URLSearchParams(credentials() as Record<string, string>).toString();
		const answer = await tokenRequest(form, 'application/x-www-form-urlencoded');
		expectError(answer, 415, 'unsupported_content_type', /application\/json/);
	});

	it('refuses another grant type', async () => {
		const answer = await tokenRequest(credentials({ grant_type: 'password' }));
		expectError(answer, 400, 'unsupported_grant_type', /client_credentials/);
	});

	it('names every missing field', async () => {
		const answer = await tokenRequest({
			grant_type: 'client_credentials',
			client_id: sim.defaultKey.clientId,
		});
		expectError(answer, 400, 'invalid_request', /client_secret, audience/);
		expect(answer.body.error.details.map((d: { field: string }) => d.field)).toEqual([
			'client_secret',
			'audience',
		]);
	});

	it('refuses a body that is not JSON', async () => {
		expectError(await tokenRequest('{not json'), 400, 'invalid_json');
	});

	it('refuses an unknown client id and a wrong secret with the same code', async () => {
		expectError(
			await tokenRequest(credentials({ client_id: 'nobody' })),
			401,
			'invalid_client',
			/Client ID/,
		);
		expectError(
			await tokenRequest(credentials({ client_secret: 'wrong' })),
			401,
			'invalid_client',
			/Client Secret/,
		);
	});

	it('refuses an audience that is not one of the environments', async () => {
		const answer = await tokenRequest(credentials({ audience: 'https://api.example.com' }));
		expectError(answer, 401, 'invalid_audience', new RegExp(sim.devUrl));
	});

	it('refuses a revoked key', async () => {
		const key = sim.control.createKey();
		sim.control.revokeKey(key.clientId);
		const answer = await tokenRequest(
			credentials({ client_id: key.clientId, client_secret: key.clientSecret }),
		);
		expectError(answer, 401, 'key_revoked', /revoked/);
	});
});

describe('bearer check', () => {
	const leadsUrl = () => `${sim.url}/1.0/api/company/${sim.companyId}/leads`;

	it('refuses a missing header', async () => {
		const answer = await send(leadsUrl());
		expectError(answer, 401, 'missing_authorization', /Authorization/);
		expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
	});

	it.each(['Basic abc', 'Bearer', 'Bearer a b', 'token'])(
		'refuses a malformed header: %s',
		async (header) => {
			const answer = await send(leadsUrl(), { headers: { authorization: header } });
			expectError(answer, 401, 'malformed_authorization', /Bearer <access token>/);
		},
	);

	it('explains that the client secret is not the bearer value', async () => {
		const answer = await send(leadsUrl(), {
			headers: { authorization: `Bearer ${sim.defaultKey.clientSecret}` },
		});
		expectError(answer, 401, 'client_secret_as_bearer', /exchange .*for an access token/);
	});

	it('refuses an unknown token', async () => {
		expectError(
			await send(leadsUrl(), { headers: { authorization: 'Bearer nope' } }),
			401,
			'invalid_token',
		);
	});

	it('refuses an expired token (control.expireTokens)', async () => {
		const token = await tokenFor(sim);
		expect((await apiClient(sim, token).api('GET', '/leads')).status).toBe(200);
		sim.control.expireTokens();
		expectError(await apiClient(sim, token).api('GET', '/leads'), 401, 'token_expired', /expired/);
	});

	it('accepts a lowercase scheme', async () => {
		const token = await tokenFor(sim);
		expect((await send(leadsUrl(), { headers: { authorization: `bearer ${token}` } })).status).toBe(
			200,
		);
	});

	it('refuses a token of the other environment, naming the expected audience', async () => {
		const devToken = await tokenFor(sim, sim.defaultKey, 'nonProduction');
		const prodToken = await tokenFor(sim, sim.defaultKey, 'production');
		const onProd = await apiClient(sim, devToken, 'production').api('GET', '/leads');
		expectError(onProd, 401, 'wrong_audience', new RegExp(`expects audience ${sim.url}`));
		const onDev = await apiClient(sim, prodToken, 'nonProduction').api('GET', '/leads');
		expectError(onDev, 401, 'wrong_audience', new RegExp(`expects audience ${sim.devUrl}`));
		expect((await apiClient(sim, devToken, 'nonProduction').api('GET', '/leads')).status).toBe(200);
	});

	it('answers 404 company_not_found for another company id, after auth', async () => {
		const token = await tokenFor(sim);
		const url = `${sim.url}/1.0/api/company/ffffffffffffffffffffffff/leads`;
		expectError(await send(url), 401, 'missing_authorization');
		const answer = await send(url, { headers: { authorization: `Bearer ${token}` } });
		expectError(answer, 404, 'company_not_found', /ffffffffffffffffffffffff/);
		const hooks = `${sim.url}/1.0/webhooks/companies/ffffffffffffffffffffffff/subscriptions`;
		expectError(
			await send(hooks, { headers: { authorization: `Bearer ${token}` } }),
			404,
			'company_not_found',
		);
	});

	it('checks the bearer on webhook management too', async () => {
		const answer = await send(`${sim.url}/1.0/webhooks/companies/${sim.companyId}/subscriptions`);
		expectError(answer, 401, 'missing_authorization');
	});
});

describe('key revocation (spec 3 and 5.6)', () => {
	it('keeps issued tokens working until expiry, refuses new ones, deletes subscriptions', async () => {
		const key = sim.control.createKey();
		const token = await tokenFor(sim, key);
		const client = apiClient(sim, token);
		const created = await client.webhooks('POST', '', { topic: 'lead/create', url: receiver.url });
		expect(created.status).toBe(200);
		expect(sim.control.listSubscriptions()).toHaveLength(1);

		sim.control.revokeKey(key.clientId);

		expect(sim.control.listSubscriptions()).toHaveLength(0);
		expect((await client.api('GET', '/leads')).status).toBe(200);
		expect((await client.webhooks('GET')).body.data).toEqual([]);
		await expect(tokenFor(sim, key)).rejects.toThrow(/key_revoked/);
		sim.control.expireTokens();
		expectError(await client.api('GET', '/leads'), 401, 'token_expired');
	});
});

describe('token lifetime', () => {
	it('expires a token after its lifetime (1 second)', async () => {
		const shortLived = await startSimulator({
			personality: 'default',
			tokenLifetimeSeconds: 1,
			seed: 2,
		});
		try {
			const token = await tokenFor(shortLived);
			const client = apiClient(shortLived, token);
			expect((await client.api('GET', '/leads')).status).toBe(200);
			await sleep(1050);
			expectError(await client.api('GET', '/leads'), 401, 'token_expired');
		} finally {
			await shortLived.close();
		}
	});
});

describe('envelope', () => {
	it('gives every answer an x-request-id matching the body context', async () => {
		const token = await tokenFor(sim);
		const answer = await apiClient(sim, token).api('GET', '/leads');
		expect(answer.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
		expect(answer.body).toEqual({
			data: [],
			context: { requestId: answer.headers.get('x-request-id') },
			status: 200,
		});
	});

	it('answers 404 route_not_found for paths that are not endpoints', async () => {
		expectError(await send(`${sim.origin}/nothing`), 404, 'route_not_found');
		const token = await tokenFor(sim);
		expectError(await apiClient(sim, token).api('DELETE', '/leads/abc'), 404, 'route_not_found');
	});
});
