import { startSimulator } from './index';
import { apiClient, expectError, send, tokenFor } from './test-helpers';
import type { Simulator } from './types';

/** Spec section 2 (subscription), 3 (lifecycle), 4 (webhook management), 6.6 and 8 (HTTPS only). */

let strict: Simulator; // the real service's rule: HTTPS only
let loose: Simulator; // started with allowInsecureLoopbackWebhooks
let client: ReturnType<typeof apiClient>;

beforeAll(async () => {
	strict = await startSimulator({ personality: 'default', seed: 4 });
	loose = await startSimulator({
		personality: 'default',
		seed: 5,
		allowInsecureLoopbackWebhooks: true,
	});
});
afterAll(async () => {
	await strict.close();
	await loose.close();
});
beforeEach(async () => {
	strict.control.reset();
	loose.control.reset();
	client = apiClient(strict, await tokenFor(strict));
});

const HTTPS_URL = 'https://hooks.example.com/partner-leads';

describe('create subscription', () => {
	it('answers status 200 with id, topic, url, signingSecret, createdAt', async () => {
		const answer = await client.webhooks('POST', '', { topic: 'lead/create', url: HTTPS_URL });
		expect(answer.status).toBe(200);
		expect(answer.body.status).toBe(200);
		expect(answer.body.data).toEqual({
			id: expect.stringMatching(/^[0-9a-f]{24}$/),
			topic: 'lead/create',
			url: HTTPS_URL,
			signingSecret: expect.stringMatching(/^whsec_.{20,}/),
			createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
		});
		const [stored] = strict.control.listSubscriptions();
		expect(stored).toEqual({ ...answer.body.data, ownerClientId: strict.defaultKey.clientId });
	});

	it.each(['lead/create', 'lead/update', 'lead/delete'])('accepts topic %s', async (topic) => {
		expect((await client.webhooks('POST', '', { topic, url: HTTPS_URL })).status).toBe(200);
	});

	it('refuses payment topics as inactive', async () => {
		const answer = await client.webhooks('POST', '', { topic: 'payment/create', url: HTTPS_URL });
		expectError(answer, 400, 'inactive_topic', /Payment topics are inactive/);
		expect(answer.body.error.details).toEqual([
			{ field: 'topic', message: answer.body.error.message },
		]);
	});

	it('refuses an unknown topic, listing the topics', async () => {
		const answer = await client.webhooks('POST', '', { topic: 'lead/merge', url: HTTPS_URL });
		expectError(answer, 400, 'invalid_topic', /lead\/create, lead\/update, lead\/delete/);
	});

	it('names missing topic and url', async () => {
		const answer = await client.webhooks('POST', '', {});
		expectError(answer, 400, 'validation_failed', /topic is required/);
		expect(answer.body.error.details.map((d: { field: string }) => d.field)).toEqual([
			'topic',
			'url',
		]);
	});

	it.each([
		['http://hooks.example.com/x', /must be HTTPS/],
		['ftp://hooks.example.com/x', /must be HTTPS/],
		['/relative/path', /absolute HTTPS URL/],
		['not a url', /absolute HTTPS URL/],
	])('refuses receiver URL %s', async (url, message) => {
		const answer = await client.webhooks('POST', '', { topic: 'lead/create', url });
		expectError(answer, 400, 'invalid_url', message);
		expect(answer.body.error.details[0].field).toBe('url');
	});

	it('refuses http://127.0.0.1 unless started with allowInsecureLoopbackWebhooks, and says so', async () => {
		const answer = await client.webhooks('POST', '', {
			topic: 'lead/create',
			url: 'http://127.0.0.1:9/hook',
		});
		expectError(answer, 400, 'invalid_url', /must be HTTPS.*allowInsecureLoopbackWebhooks/);
	});

	it('accepts http loopback URLs with allowInsecureLoopbackWebhooks, but not other http URLs', async () => {
		const looseClient = apiClient(loose, await tokenFor(loose));
		for (const url of [
			'http://127.0.0.1:9/hook',
			'http://localhost:9/hook',
			'http://[::1]:9/hook',
		]) {
			expect((await looseClient.webhooks('POST', '', { topic: 'lead/create', url })).status).toBe(
				200,
			);
		}
		const remote = await looseClient.webhooks('POST', '', {
			topic: 'lead/create',
			url: 'http://hooks.example.com/x',
		});
		expectError(remote, 400, 'invalid_url', /must be HTTPS/);
	});

	it('requires a JSON body', async () => {
		const answer = await strictRequest(
			'POST',
			'topic=lead/create',
			'application/x-www-form-urlencoded',
		);
		expectError(answer, 415, 'unsupported_content_type');
	});
});

async function strictRequest(method: string, rawBody: string, contentType: string) {
	return send(`${strict.url}/1.0/webhooks/companies/${strict.companyId}/subscriptions`, {
		method,
		rawBody,
		headers: { 'content-type': contentType, authorization: `Bearer ${await tokenFor(strict)}` },
	});
}

describe('list and delete', () => {
	it("lists only the calling key's subscriptions, never the secret", async () => {
		const other = apiClient(strict, await tokenFor(strict, strict.control.createKey()));
		const mine = (await client.webhooks('POST', '', { topic: 'lead/create', url: HTTPS_URL })).body
			.data;
		await other.webhooks('POST', '', { topic: 'lead/update', url: `${HTTPS_URL}/other` });
		const answer = await client.webhooks('GET');
		expect(answer.status).toBe(200);
		expect(answer.body.status).toBe(200);
		expect(answer.body.data).toEqual([
			{ id: mine.id, topic: 'lead/create', url: HTTPS_URL, createdAt: mine.createdAt },
		]);
		expect(answer.text).not.toContain('whsec_');
		expect((await other.webhooks('GET')).body.data).toHaveLength(1);
	});

	it("deletes the caller's subscription: {id, deleted: true}, then 404", async () => {
		const created = (await client.webhooks('POST', '', { topic: 'lead/create', url: HTTPS_URL }))
			.body.data;
		const answer = await client.webhooks('DELETE', `/${created.id}`);
		expect(answer.status).toBe(200);
		expect(answer.body).toEqual(
			expect.objectContaining({ status: 200, data: { id: created.id, deleted: true } }),
		);
		expect((await client.webhooks('GET')).body.data).toEqual([]);
		expectError(
			await client.webhooks('DELETE', `/${created.id}`),
			404,
			'not_found',
			new RegExp(created.id),
		);
	});

	it('does not let another key delete a subscription (404, and it stays)', async () => {
		const created = (await client.webhooks('POST', '', { topic: 'lead/create', url: HTTPS_URL }))
			.body.data;
		const other = apiClient(
			strict,
			await tokenFor(strict, strict.control.createKey({ selfServe: false })),
		);
		expectError(
			await other.webhooks('DELETE', `/${created.id}`),
			404,
			'not_found',
			/not found for this API key/,
		);
		expect(strict.control.listSubscriptions().map((s) => s.id)).toEqual([created.id]);
	});

	it('keeps one topic and one URL per subscription', async () => {
		await client.webhooks('POST', '', { topic: 'lead/create', url: HTTPS_URL });
		await client.webhooks('POST', '', { topic: 'lead/update', url: HTTPS_URL });
		const list = (await client.webhooks('GET')).body.data as Array<{ topic: string }>;
		expect(list.map((s) => s.topic)).toEqual(['lead/create', 'lead/update']);
	});
});
