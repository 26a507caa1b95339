/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { spawn } from 'node:child_process';
import path from 'node:path';

import { DEFAULT_LEAD_SCHEMA, startSimulator } from './index';
import {
	apiClient,
	expectError,
	requestToken,
	send,
	startReceiver,
	tokenFor,
	validLead,
	type Receiver,
} from './test-helpers';
import type { Simulator } from './types';

/** The control API (not the spec's surface): in-process reset, the HTTP mirror, and the CLI. */

let sim: Simulator;
let receiver: Receiver;

beforeAll(async () => {
	sim = await startSimulator({
		personality: 'default',
		seed: 11,
		allowInsecureLoopbackWebhooks: true,
		// an answer may take up to 5 s: a busy machine's late answer is no lost one, retried
		delivery: { baseDelayMs: 5, timeoutMs: 5_000 },
	});
	receiver = await startReceiver();
});
afterAll(async () => {
	await sim.close();
	await receiver.close();
});
beforeEach(() => sim.control.reset());

const control = (method: string, route: string, body?: unknown) =>
	send(`${sim.controlUrl}${route}`, { method, body });

describe('reset', () => {
	it('puts schema, data, keys, subscriptions, faults, limits and stats back to the start state', async () => {
		const key = sim.control.createKey();
		sim.control.setSchema([]);
		sim.control.setRawSchemaResponse({ x: 1 });
		sim.control.seedLeads(3);
		const org = sim.control.addPartnerOrganization();
		sim.control.setFaults('GET /leads', { rate5xx: 1 });
		sim.control.setRateLimit(1);
		sim.control.setDeliveryFaults({ duplicateRate: 1 });
		await apiClient(sim, await tokenFor(sim, key)).webhooks('POST', '', {
			topic: 'lead/create',
			url: receiver.url,
		});
		sim.control.revokeKey(sim.defaultKey.clientId);

		sim.control.reset();

		expect(sim.control.getSchema()).toEqual(DEFAULT_LEAD_SCHEMA);
		expect(sim.control.listLeads()).toEqual([]);
		expect(sim.control.listKeys()).toEqual([sim.defaultKey]);
		expect(sim.control.listSubscriptions()).toEqual([]);
		expect(sim.control.listPartnerOrganizations().map((o) => o.id)).not.toContain(org.id);
		expect(sim.control.listAgents(sim.defaultPartnerOrganization.id)).toEqual(sim.defaultAgents);
		expect(sim.control.deliveries()).toEqual([]);
		expect(sim.control.stats().tokenRequests).toBe(0);
		const client = apiClient(sim, await tokenFor(sim));
		for (let i = 0; i < 3; i++) expect((await client.api('GET', '/leads')).status).toBe(200);
		expect((await client.api('GET', '/schema/lead')).body.data.unifiedFields).toEqual(
			DEFAULT_LEAD_SCHEMA,
		);
	});

	it('hands out copies', () => {
		const schema = sim.control.getSchema();
		schema.pop();
		expect(sim.control.getSchema()).toHaveLength(DEFAULT_LEAD_SCHEMA.length);
		const [lead] = sim.control.seedLeads(1);
		lead.firstName = 'changed';
		expect(sim.control.getLead(lead.id)?.firstName).not.toBe('changed');
	});

	it('starts with a self-serve default key, two agents in the default organization, and another organization', () => {
		expect(sim.defaultKey.selfServe).toBe(true);
		expect(sim.companyId).toMatch(/^[0-9a-f]{24}$/);
		expect(sim.defaultAgents.map((a) => a.partnerOrganizationId)).toEqual([
			sim.defaultPartnerOrganization.id,
			sim.defaultPartnerOrganization.id,
		]);
		expect(sim.otherAgent.partnerOrganizationId).toBe(sim.otherPartnerOrganization.id);
		expect(sim.url).toBe(`${sim.origin}/prod`);
		expect(sim.devUrl).toBe(`${sim.origin}/dev`);
		expect(sim.authUrl).toBe(`${sim.origin}/auth`);
		expect(sim.controlUrl).toBe(`${sim.origin}/__control`);
		expect(sim.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	});

	it('refuses a non-loopback host', async () => {
		await expect(startSimulator({ personality: 'default', host: '0.0.0.0' })).rejects.toThrow(
			/loopback only/,
		);
	});
});

describe('HTTP mirror', () => {
	it('describes the simulator at the root', async () => {
		const answer = await control('GET', '');
		expect(answer.status).toBe(200);
		expect(answer.body.data).toEqual(
			expect.objectContaining({
				url: sim.url,
				devUrl: sim.devUrl,
				authUrl: sim.authUrl,
				controlUrl: sim.controlUrl,
				companyId: sim.companyId,
				defaultKey: sim.defaultKey,
				defaultPartnerOrganization: sim.defaultPartnerOrganization,
				defaultAgents: sim.defaultAgents,
			}),
		);
	});

	it('manages keys and tokens', async () => {
		const key = (await control('POST', '/keys', { selfServe: false })).body.data;
		expect(key).toEqual({
			clientId: expect.any(String),
			clientSecret: expect.any(String),
			selfServe: false,
			revoked: false,
		});
		expect((await control('GET', '/keys')).body.data).toHaveLength(2);
		const token = await tokenFor(sim, key);
		expect((await control('POST', `/keys/${key.clientId}/revoke`)).body.data).toEqual({
			clientId: key.clientId,
			revoked: true,
		});
		expectError(await control('POST', '/keys/nobody/revoke'), 404, 'not_found');
		expect((await control('POST', '/tokens/expire')).status).toBe(200);
		expectError(await apiClient(sim, token).api('GET', '/leads'), 401, 'token_expired');
		expectError(
			await control('POST', '/keys', { clientId: sim.defaultKey.clientId }),
			400,
			'control_error',
			/already exists/,
		);
	});

	it('sets the schema and a raw schema body', async () => {
		const fields = [
			{
				fieldId: 'firstName',
				label: 'F',
				type: 'string',
				required: true,
				creatable: true,
				updateable: true,
			},
		];
		expect((await control('PUT', '/schema', fields)).body.data).toEqual(fields);
		expect((await control('PUT', '/schema', { fields })).status).toBe(200);
		expect((await control('GET', '/schema')).body.data).toEqual(fields);
		await control('PUT', '/schema/raw', { body: { unifiedFields: [] } });
		const client = apiClient(sim, await tokenFor(sim));
		expect((await client.api('GET', '/schema/lead')).body).toEqual({ unifiedFields: [] });
		await control('PUT', '/schema/raw', { body: null });
		expect((await client.api('GET', '/schema/lead')).body.data.unifiedFields).toEqual(fields);
		expectError(await control('PUT', '/schema', { fields: [{}] }), 400, 'control_error', /fieldId/);
	});

	it('adds organizations and agents', async () => {
		const org = (await control('POST', '/organizations', { name: 'Initech' })).body.data;
		expect(org).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Initech' });
		const agent = (await control('POST', `/organizations/${org.id}/agents`, { name: 'Peter' })).body
			.data;
		expect(agent).toEqual({ id: expect.any(String), partnerOrganizationId: org.id, name: 'Peter' });
		expect((await control('GET', `/organizations/${org.id}/agents`)).body.data).toEqual([agent]);
		expect((await control('GET', '/organizations')).body.data).toHaveLength(3);
		expectError(
			await control('POST', '/organizations/nope/agents', {}),
			400,
			'control_error',
			/does not exist/,
		);
	});

	it('seeds, lists and reads leads', async () => {
		const seeded = (await control('POST', '/leads/seed', { count: 3 })).body.data;
		expect(seeded).toHaveLength(3);
		const summary = (await control('POST', '/leads/seed', { count: 2, summary: true })).body.data;
		expect(summary).toEqual({ count: 2, ids: [expect.any(String), expect.any(String)] });
		const explicit = (
			await control('POST', '/leads/seed', {
				leads: [{ firstName: 'Given', customFields: { industry: 'retail' } }],
			})
		).body.data;
		expect(explicit[0]).toEqual(
			expect.objectContaining({ firstName: 'Given', customFields: { industry: 'retail' } }),
		);
		expect((await control('GET', '/leads')).body.data).toHaveLength(6);
		expect((await control('GET', `/leads/${seeded[0].id}`)).body.data).toEqual(seeded[0]);
		expectError(await control('GET', '/leads/nope'), 404, 'not_found');
	});

	it('acts in the portal, with webhook events, and waits for deliveries', async () => {
		const client = apiClient(sim, await tokenFor(sim));
		for (const topic of ['lead/create', 'lead/update', 'lead/delete']) {
			await client.webhooks('POST', '', { topic, url: receiver.url });
		}
		receiver.received.length = 0;
		const lead = (await control('POST', '/portal/leads', { firstName: 'P', lastName: 'Q' })).body
			.data;
		expect(
			(
				await control('PATCH', `/portal/leads/${lead.id}`, {
					value: 5,
					customFields: { industry: 'saas' },
				})
			).body.data,
		).toEqual(expect.objectContaining({ value: 5, customFields: { industry: 'saas' } }));
		expect((await control('DELETE', `/portal/leads/${lead.id}`)).body.data).toEqual({
			id: lead.id,
			deleted: true,
		});
		expectError(await control('DELETE', `/portal/leads/${lead.id}`), 404, 'not_found');
		expect((await control('POST', '/deliveries/wait', { timeoutMs: 2000 })).body.data).toEqual({
			idle: true,
		});
		const topics = (await control('GET', '/deliveries')).body.data
			.map((d: { topic: string }) => d.topic)
			.sort();
		expect(topics).toEqual(['lead/create', 'lead/delete', 'lead/update']);
		expect((await control('GET', '/subscriptions')).body.data).toHaveLength(3);
	});

	it('reports pending deliveries as 504 when the wait times out', async () => {
		const client = apiClient(sim, await tokenFor(sim));
		await client.webhooks('POST', '', { topic: 'lead/create', url: receiver.url });
		receiver.setResponder(() => 'hang');
		await client.api('POST', '/leads', validLead(sim));
		expectError(
			await control('POST', '/deliveries/wait', { timeoutMs: 10 }),
			504,
			'deliveries_pending',
			/still busy/,
		);
		receiver.setResponder(() => 200);
		// the hung attempt ends at the 5 s timeout, and its retry is answered
		await sim.control.waitForDeliveries(15_000);
	});

	it('sets delivery faults, route faults and the rate limit; reads and resets stats; resets', async () => {
		expect((await control('PUT', '/delivery-faults', { duplicateRate: 1 })).status).toBe(200);
		expectError(
			await control('PUT', '/delivery-faults', { duplicateRate: 3 }),
			400,
			'control_error',
		);
		const client = apiClient(sim, await tokenFor(sim));
		await control('PUT', '/faults', { route: 'GET /leads', faults: { rate429: 1 } });
		expect((await client.api('GET', '/leads')).status).toBe(429);
		await control('PUT', '/faults', { route: 'GET /leads', faults: null });
		expect((await client.api('GET', '/leads')).status).toBe(200);
		await control('PUT', '/faults', { route: '*', faults: { rate5xx: 1 } });
		await control('DELETE', '/faults');
		expect((await client.api('GET', '/leads')).status).toBe(200);
		expectError(
			await control('PUT', '/faults', { route: 'GET /nope', faults: {} }),
			400,
			'control_error',
			/Unknown route key/,
		);

		await control('PUT', '/rate-limit', { requestsPerSecond: 1 });
		await client.api('GET', '/leads');
		expect((await client.api('GET', '/leads')).status).toBe(429);
		await control('PUT', '/rate-limit', { requestsPerSecond: null });
		expect((await client.api('GET', '/leads')).status).toBe(200);

		expect((await control('GET', '/stats')).body.data.byRoute['GET /leads']).toBeGreaterThan(0);
		await control('DELETE', '/stats');
		expect((await control('GET', '/stats')).body.data.byRoute).toEqual({});
		await client.api('GET', '/leads');
		await control('POST', '/stats/reset');
		expect((await control('GET', '/stats')).body.data.byRoute).toEqual({});

		sim.control.seedLeads(2);
		expect((await control('POST', '/reset')).status).toBe(200);
		expect(sim.control.listLeads()).toEqual([]);
	});

	it('answers unknown control routes and bad JSON with the error envelope', async () => {
		expectError(await control('GET', '/nothing'), 404, 'route_not_found');
		const bad = await send(`${sim.controlUrl}/keys`, {
			method: 'POST',
			rawBody: '{',
			headers: { 'content-type': 'application/json' },
		});
		expectError(bad, 400, 'invalid_json');
	});
});

describe('CLI', () => {
	it('prints the credential values and stops on SIGTERM', async () => {
		const tsNode = path.join(__dirname, '../../node_modules/.bin/ts-node');
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- a test starting our own CLI, never shipped
		const child = spawn(
			tsNode,
			[
				'--transpile-only',
				path.join(__dirname, 'cli.ts'),
				'--port',
				'0',
				'--json',
				'--token-lifetime',
				'60',
			],
			{
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		try {
			const line = await new Promise<string>((resolve, reject) => {
				let out = '';
				const timer = setTimeout(() => reject(new Error(`no output from the CLI: ${out}`)), 15_000);
				child.stdout.on('data', (chunk: Buffer) => {
					out += chunk.toString();
					if (out.includes('\n')) {
						clearTimeout(timer);
						resolve(out.split('\n')[0]);
					}
				});
				child.on('exit', (code) => reject(new Error(`CLI exited with ${code}`)));
			});
			const values = JSON.parse(line);
			expect(values).toEqual(
				expect.objectContaining({
					environment: 'production',
					url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/prod$/),
					devUrl: expect.stringMatching(/\/dev$/),
					authUrl: expect.stringMatching(/\/auth$/),
					companyId: expect.stringMatching(/^[0-9a-f]{24}$/),
					clientId: expect.any(String),
					clientSecret: expect.any(String),
					controlUrl: expect.stringMatching(/\/__control$/),
				}),
			);
			const token = await requestToken(values);
			expect(token.body.expires_in).toBe(60);
		} finally {
			const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
		}
	});
});
