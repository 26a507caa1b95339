/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code: runs in Node next to n8n, never inside it, never shipped */
import { plainHttpProblem } from '../../nodes/shared/transport/connection';
import { N8nHarness, ownKey, simulatorCredentialData } from '../harness/harness';
import type { NodeRun } from '../harness/harness';
import { testCredential } from '../harness/credential-test';
import { startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';
import { movableClock } from '../support/movable-clock';

const schemaRequest = { method: 'GET', path: '/schema/lead', what: 'lead schema' };

function probe(
	harness: N8nHarness,
	items: object[],
	continueOnFail = false,
	credential = harness.credential,
): Promise<NodeRun> {
	return harness.runNode({
		type: 'test.transportProbe',
		parameters: {},
		items: items as never,
		continueOnFail,
		credential,
	});
}

/** Every text a user or a log could see of a run: messages, descriptions, the whole error. */
function visibleText(run: NodeRun): string {
	return JSON.stringify([
		run.error ?? null,
		run.error?.message ?? '',
		run.error?.description ?? '',
		run.items.map((item) => item.json),
	]);
}

describe('credential: cached client-credentials token', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ tokenLifetimeSeconds: 3600 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => sim.control.reset());

	it('500 authenticated requests across five executions cost exactly one token request', async () => {
		const harness = new N8nHarness(sim, ownKey(sim));
		for (let execution = 0; execution < 5; execution++) {
			const run = await probe(
				harness,
				Array.from({ length: 100 }, () => schemaRequest),
			);
			expect(run.error).toBeUndefined();
			expect(run.items).toHaveLength(100);
		}
		expect(sim.control.stats().byRoute['GET /schema/lead']).toBe(500);
		expect(sim.control.stats().tokenRequests).toBe(1);
		expect(harness.credentialsHelper.preAuthenticationCalls).toBe(1);
		// n8n stored the token with the credential, as it would in its database
		expect(harness.storedCredential()?.accessToken).toEqual(expect.any(String));
		expect(harness.storedCredential()?.accessToken).not.toBe(sim.defaultKey.clientSecret);
	});

	it('after the token expires, the next request gets a 401 (or 403), refreshes once and succeeds', async () => {
		const harness = new N8nHarness(sim, ownKey(sim));
		expect((await probe(harness, [schemaRequest])).error).toBeUndefined();
		const firstToken = harness.storedCredential()?.accessToken;
		sim.control.expireTokens();

		const run = await probe(
			harness,
			Array.from({ length: 20 }, () => schemaRequest),
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(20);
		const stats = sim.control.stats();
		expect(stats.tokenRequests).toBe(2);
		expect(stats.statusesByRoute['GET /schema/lead'][sim.personality.authFailureStatus]).toBe(1);
		expect(harness.storedCredential()?.accessToken).not.toBe(firstToken);
	});

	it('a token that expires by its lifetime is renewed without failing the run', async () => {
		const clock = movableClock();
		const shortLived = await startSimulator({ tokenLifetimeSeconds: 1 });
		try {
			const harness = new N8nHarness(shortLived);
			expect((await probe(harness, [schemaRequest])).error).toBeUndefined();
			clock.advance(1100);
			const run = await probe(harness, [schemaRequest, schemaRequest]);
			expect(run.error).toBeUndefined();
			expect(shortLived.control.stats().tokenRequests).toBe(2);
		} finally {
			await shortLived.close();
			clock.restore();
		}
	});

	it('a token near expiry is renewed before it is used, without a 401', async () => {
		// lifetime 4 s: renewal is due in its last 10% (0.4 s)
		const clock = movableClock();
		const shortLived = await startSimulator({ tokenLifetimeSeconds: 4 });
		try {
			const harness = new N8nHarness(shortLived);
			expect((await probe(harness, [schemaRequest])).error).toBeUndefined();
			const renewalDueAt = Number(harness.storedCredential()?.renewalDueAt);
			const issuedToken = harness.storedCredential()?.accessToken;
			expect(renewalDueAt).toBeGreaterThan(Date.now());
			clock.advance(renewalDueAt - Date.now() + 50);
			const run = await probe(harness, [schemaRequest, schemaRequest]);
			expect(run.error).toBeUndefined();
			const stats = shortLived.control.stats();
			expect(stats.tokenRequests).toBe(2);
			expect(stats.statusesByRoute['GET /schema/lead'][401]).toBeUndefined();
			expect(harness.storedCredential()?.accessToken).not.toBe(issuedToken);
			expect(Number(harness.storedCredential()?.renewalDueAt)).toBeGreaterThan(renewalDueAt);
		} finally {
			await shortLived.close();
			clock.restore();
		}
	});

	it('parallel requests with no token yet share one token exchange', async () => {
		const harness = new N8nHarness(sim, ownKey(sim));
		const runs = await Promise.all([
			probe(harness, [schemaRequest]),
			probe(harness, [schemaRequest]),
			probe(harness, [schemaRequest]),
		]);
		for (const run of runs) expect(run.error).toBeUndefined();
		expect(sim.control.stats().tokenRequests).toBe(1);
	});
});

describe('credential: a token issuer that fails for a while', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator({ seed: 11 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => sim.control.reset());

	it('token requests answered 429 or 5xx are retried, and the runs succeed', async () => {
		sim.control.setFaults('POST /oauth/token', {
			rate429: 0.3,
			rate5xx: 0.2,
			retryAfterSeconds: 0,
		});
		const harness = new N8nHarness(sim, ownKey(sim));
		for (let execution = 0; execution < 10; execution++) {
			sim.control.expireTokens();
			const run = await probe(harness, [schemaRequest]);
			expect(run.error).toBeUndefined();
		}
		const statuses = sim.control.stats().statusesByRoute['POST /oauth/token'];
		expect(statuses[200]).toBe(10);
		expect(
			(statuses[429] ?? 0) + (statuses[500] ?? 0) + (statuses[502] ?? 0) + (statuses[503] ?? 0),
		).toBeGreaterThan(0);
	});

	it('an issuer that keeps failing gives up after a bounded number of tries and says it is temporary', async () => {
		sim.control.setFaults('POST /oauth/token', { rate5xx: 1 });
		const run = await probe(new N8nHarness(sim, ownKey(sim)), [schemaRequest]);
		expect(run.error?.message).toMatch(/kept answering HTTP 5\d\d, also after retries/);
		expect(run.error?.description).toMatch(/Run the workflow again/);
		expect(sim.control.stats().tokenRequests).toBe(4);
	});

	it('a wrong secret is not retried', async () => {
		const run = await probe(new N8nHarness(sim, { clientSecret: 'wrong-secret-value-123456' }), [
			schemaRequest,
		]);
		expect(run.error?.message).toMatch(/rejected the 'Client ID' or 'Client Secret'/);
		expect(run.error?.description).toMatch(
			/^Copy both again .*Open the Partner Referral Service API credential, change it/,
		);
		expect(sim.control.stats().tokenRequests).toBe(1);
	});
});

describe('credential: failures say what to fix, and never show a secret', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator();
	});
	afterAll(async () => await sim.close());
	beforeEach(() => sim.control.reset());

	function expectNoSecrets(text: string, secrets: string[]) {
		for (const secret of secrets) expect(text).not.toContain(secret);
	}

	it('a wrong client secret names the Client ID / Client Secret', async () => {
		const harness = new N8nHarness(sim, { clientSecret: 'wrong-secret-value-123456' });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toMatch(/rejected the 'Client ID' or 'Client Secret'/);
		expectNoSecrets(visibleText(run), ['wrong-secret-value-123456', sim.defaultKey.clientSecret]);
		expect(sim.control.stats().tokenRequests).toBe(1);
	});

	it('a revoked key says it was revoked and how to replace it', async () => {
		const key = sim.control.createKey({ selfServe: true });
		const harness = new N8nHarness(sim, { clientId: key.clientId, clientSecret: key.clientSecret });
		expect((await probe(harness, [schemaRequest])).error).toBeUndefined();
		const token = harness.storedCredential()?.accessToken as string;
		sim.control.revokeKey(key.clientId);
		// a token already issued keeps working until it expires (spec 5.6)
		expect((await probe(harness, [schemaRequest])).error).toBeUndefined();
		sim.control.expireTokens();
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toMatch(/revoked/);
		expect(run.error?.message).toMatch(/create a new key/i);
		expectNoSecrets(visibleText(run), [key.clientSecret, token]);
	});

	it('a wrong audience for the environment says so', async () => {
		const harness = new N8nHarness(sim, { audience: sim.devUrl });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toMatch(/another environment/);
		expect(run.error?.description).toMatch(/Audience/);
		expectNoSecrets(visibleText(run), [
			sim.defaultKey.clientSecret,
			harness.storedCredential()?.accessToken as string,
		]);
	});

	it('an audience that belongs to no environment is refused by the issuer with its own message', async () => {
		const harness = new N8nHarness(sim, { audience: 'https://api.elsewhere.example' });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toMatch(/refused the audience/);
	});

	it('the non-production environment uses its own base address and audience', async () => {
		const harness = new N8nHarness(sim, { environment: 'nonProduction' });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error).toBeUndefined();
		expect(run.items[0].json.data).toHaveProperty('unifiedFields');
	});

	it('an unknown Company ID is named as such', async () => {
		const harness = new N8nHarness(sim, { companyId: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toMatch(/Unknown Company ID "aaaaaaaaaaaaaaaaaaaaaaaa"/);
	});

	it('a plain-http address for another host fails the run before any request, naming the field', async () => {
		const addresses: Array<Record<string, string>> = [
			{ baseUrl: 'http://10.1.2.3:8080' },
			{ authUrl: 'http://auth.example.com' },
			{ baseUrl: 'http://[2001:db8::1]' },
		];
		for (const overrides of addresses) {
			sim.control.resetStats();
			const run = await probe(new N8nHarness(sim, overrides), [schemaRequest]);
			expect(run.error?.message).toMatch(/uses plain http:\/\//);
			expect(run.error?.description).toMatch(/^Use its https:\/\/ address/);
			expect(sim.control.stats().tokenRequests).toBe(0);
		}
		for (const host of ['localhost', '127.0.0.2', '[::1]']) {
			expect(plainHttpProblem(`http://${host}:1234`, 'x')).toBeUndefined();
		}
		for (const host of ['localhost.example.com', '127.0.0.1.nip.io', '128.0.0.1', '[::2]']) {
			expect(plainHttpProblem(`http://${host}:1234`, 'x')).toBeDefined();
		}
	});

	it('a Company ID of the wrong length is caught before any request', async () => {
		const harness = new N8nHarness(sim, { companyId: 'abc' });
		const run = await probe(harness, [schemaRequest]);
		expect(run.error?.message).toBe("'Company ID' has 3 characters instead of 24.");
		expect(run.error?.description).toMatch(
			/^Copy the 24-character 'Company ID' that the provider gave you/,
		);
		expect(sim.control.stats().tokenRequests).toBe(0);
	});

	it('continue-on-fail turns each failure into an item with the message', async () => {
		const harness = new N8nHarness(sim, { clientSecret: 'wrong-secret-value-123456' });
		const run = await probe(harness, [schemaRequest, schemaRequest], true);
		expect(run.items).toHaveLength(2);
		for (const item of run.items)
			expect(String(item.json.error)).toMatch(/'Client ID' or 'Client Secret'/);
		expectNoSecrets(visibleText(run), ['wrong-secret-value-123456']);
	});
});

describe('credential test (the Test button)', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator();
	});
	afterAll(async () => await sim.close());
	beforeEach(() => sim.control.reset());

	it('passes with good values and makes a real authenticated call', async () => {
		const harness = new N8nHarness(sim);
		const result = await testCredential(harness, simulatorCredentialData(sim));
		expect(result).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connection successful/),
		});
		expect(sim.control.stats().byRoute['GET /schema/lead']).toBe(1);
	});

	it('separates a bad secret, a wrong audience, a revoked key and an unknown Company ID', async () => {
		const harness = new N8nHarness(sim);
		const badSecret = await testCredential(
			harness,
			simulatorCredentialData(sim, { clientSecret: 'not-the-secret-0000' }),
			'a',
		);
		expect(badSecret.status).toBe('Error');
		expect(badSecret.message).toMatch(/'Client ID' or 'Client Secret'/);
		expect(badSecret.message).not.toContain('not-the-secret-0000');

		const wrongAudience = await testCredential(
			harness,
			simulatorCredentialData(sim, { audience: sim.devUrl }),
			'b',
		);
		expect(wrongAudience.message).toMatch(/Audience/);

		const key = sim.control.createKey();
		sim.control.revokeKey(key.clientId);
		const revoked = await testCredential(
			harness,
			simulatorCredentialData(sim, { clientId: key.clientId, clientSecret: key.clientSecret }),
			'c',
		);
		expect(revoked.message).toMatch(/revoked/);

		const unknownCompany = await testCredential(
			harness,
			simulatorCredentialData(sim, { companyId: 'bbbbbbbbbbbbbbbbbbbbbbbb' }),
			'd',
		);
		expect(unknownCompany.message).toMatch(/Unknown Company ID "bbbbbbbbbbbbbbbbbbbbbbbb"/);
	});

	it('refuses a plain-http address for another host before sending anything, and allows loopback', async () => {
		const harness = new N8nHarness(sim);
		for (const [field, label] of [
			['baseUrl', 'Production API Base Address'],
			['authUrl', 'Token Issuer Address'],
		] as const) {
			sim.control.resetStats();
			const result = await testCredential(
				harness,
				simulatorCredentialData(sim, { [field]: 'http://api.example.com' }),
				field,
			);
			expect(result.status).toBe('Error');
			expect(result.message).toContain(`'${label}' "http://api.example.com" uses plain http://`);
			expect(result.message).toMatch(/https:\/\/api\.example\.com/);
			expect(sim.control.stats().tokenRequests).toBe(0);
		}
		// the simulator itself is on plain-http loopback
		expect(sim.url.startsWith('http://127.0.0.1')).toBe(true);
		expect((await testCredential(harness, simulatorCredentialData(sim), 'loopback')).status).toBe(
			'OK',
		);
	});
});
