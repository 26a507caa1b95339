import type { IDataObject } from 'n8n-workflow';

import { readHttpFailure, serviceError } from '../../nodes/shared/transport/errors';
import { retryAfterMs } from '../../nodes/shared/transport/retry-policy';
import { N8nHarness } from '../harness/harness';
import { startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';

function leadBody(sim: Simulator, n: number): IDataObject {
	return {
		firstName: `Ada${n}`,
		lastName: 'Lovelace',
		email: `ada${n}@example.com`,
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0].id,
	};
}

describe('transport: 429, 5xx and lost connections', () => {
	let sim: Simulator;
	let harness: N8nHarness;
	beforeAll(async () => {
		sim = await startSimulator({ seed: 7 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	it('under a 30% share of 429s, 300 requests all succeed', async () => {
		sim.control.setFaults('GET /schema/lead', { rate429: 0.3, retryAfterSeconds: 0 });
		const items = Array.from({ length: 300 }, () => ({
			method: 'GET',
			path: '/schema/lead',
			what: 'lead schema',
		}));
		const run = await harness.runNode({ type: 'test.transportProbe', parameters: {}, items });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(300);
		const statuses = sim.control.stats().statusesByRoute['GET /schema/lead'];
		expect(statuses[200]).toBe(300);
		expect(statuses[429]).toBeGreaterThan(50);
	});

	it('a 429 on a create is retried (nothing was applied) and creates exactly one lead', async () => {
		sim.control.setFaults('POST /leads', { rate429: 0.5, retryAfterSeconds: 0 });
		const items = Array.from({ length: 40 }, (_, n) => ({
			method: 'POST',
			path: '/leads',
			body: leadBody(sim, n),
			what: 'lead',
		}));
		const run = await harness.runNode({ type: 'test.transportProbe', parameters: {}, items });
		expect(run.error).toBeUndefined();
		expect(sim.control.listLeads()).toHaveLength(40);
	});

	it('5xx on GET is retried until it succeeds: 3 in a row, the most a request retries', async () => {
		// Scheduled, not dice: the first request meets exactly three 5xx, the retry limit.
		sim.control.setFaults('GET /schema/lead', { next5xx: 3 });
		const items = Array.from({ length: 5 }, () => ({
			method: 'GET',
			path: '/schema/lead',
			what: 'lead schema',
		}));
		const run = await harness.runNode({ type: 'test.transportProbe', parameters: {}, items });
		expect(run.error).toBeUndefined();
		const statuses = sim.control.stats().statusesByRoute['GET /schema/lead'];
		expect(statuses).toEqual({ 200: 5, 503: 3 });
	});

	it('a GET that meets a 5xx once more than the retries fails, saying it was retried', async () => {
		sim.control.setFaults('GET /schema/lead', { next5xx: 4 });
		const run = await harness.runNode({
			type: 'test.transportProbe',
			parameters: {},
			items: [{ method: 'GET', path: '/schema/lead', what: 'lead schema' }],
		});
		expect(run.error?.message).toMatch(/could not handle the request \(HTTP 503\)/);
		expect(sim.control.stats().statusesByRoute['GET /schema/lead']).toEqual({ 503: 4 });
	});

	it('with 5xx injected on create, the simulator receives no duplicate lead', async () => {
		sim.control.setFaults('POST /leads', { rate5xxAfterEffect: 0.3, rate5xx: 0.1 });
		const items = Array.from({ length: 100 }, (_, n) => ({
			method: 'POST',
			path: '/leads',
			body: leadBody(sim, n),
			what: 'lead',
		}));
		const run = await harness.runNode({
			type: 'test.transportProbe',
			parameters: {},
			items,
			continueOnFail: true,
		});
		expect(run.items).toHaveLength(100);
		const failed = run.items.filter((item) => item.json.error);
		expect(failed.length).toBeGreaterThan(0);
		for (const item of failed) expect(String(item.json.description)).toMatch(/not sent again/);
		// each item's create was sent once, whatever happened to its answer
		expect(sim.control.stats().byRoute['POST /leads']).toBe(100);
		const emails = sim.control.listLeads().map((lead) => lead.email);
		expect(new Set(emails).size).toBe(emails.length);
	});

	it('a dropped connection on create is not resent; on GET it is', async () => {
		sim.control.setFaults('POST /leads', { dropRate: 1 });
		const create = await harness.runNode({
			type: 'test.transportProbe',
			parameters: {},
			items: [{ method: 'POST', path: '/leads', body: leadBody(sim, 1), what: 'lead' }],
			continueOnFail: true,
		});
		expect(String(create.items[0].json.error)).toMatch(/Could not reach/);
		expect(sim.control.stats().byRoute['POST /leads']).toBe(1);

		sim.control.clearFaults();
		sim.control.setFaults('GET /schema/lead', { dropRate: 0.3 });
		const items = Array.from({ length: 30 }, () => ({
			method: 'GET',
			path: '/schema/lead',
			what: 'lead schema',
		}));
		const reads = await harness.runNode({ type: 'test.transportProbe', parameters: {}, items });
		expect(reads.error).toBeUndefined();
	});

	it('an unknown lead id says the lead does not exist, with the request id', async () => {
		const run = await harness.runNode({
			type: 'test.transportProbe',
			parameters: {},
			items: [
				{
					method: 'GET',
					path: '/leads/ffffffffffffffffffffffff',
					what: 'lead ffffffffffffffffffffffff',
				},
			],
			continueOnFail: true,
		});
		expect(run.items[0].json.error).toMatch(/lead ffffffffffffffffffffffff does not exist/);
		expect(run.items[0].json.description).toMatch(/Request ID: \S+/);
	});

	it('a validation failure lists the fields and the messages of the service', async () => {
		const run = await harness.runNode({
			type: 'test.transportProbe',
			parameters: {},
			items: [{ method: 'POST', path: '/leads', body: { lastName: 'Only' }, what: 'lead' }],
			continueOnFail: true,
		});
		expect(run.items[0].json.error).toMatch(/firstName/);
		expect(run.items[0].json.error).toMatch(/partnerOrganizationId/);
	});
});

describe('transport: error mapping of answers the node cannot get from its own credential', () => {
	let sim: Simulator;
	beforeAll(async () => {
		sim = await startSimulator();
	});
	afterAll(async () => await sim.close());
	afterEach(() => jest.restoreAllMocks());

	it('the client secret sent as the bearer value is named as the cause', async () => {
		const response = await fetch(`${sim.url}/1.0/api/company/${sim.companyId}/schema/lead`, {
			headers: { Authorization: `Bearer ${sim.defaultKey.clientSecret}` },
		});
		const text = await response.text();
		const data: unknown = response.headers.get('content-type')?.includes('json')
			? JSON.parse(text)
			: text;
		const failure = readHttpFailure({
			response: { status: response.status, data, headers: Object.fromEntries(response.headers) },
		});
		const node = {
			id: 'n',
			name: 'Partner Leads',
			type: 'x',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		};
		const error = serviceError(
			node,
			failure,
			{ method: 'GET', what: 'lead schema', environment: 'Production' },
			[sim.defaultKey.clientSecret],
		);
		expect(error.message).toMatch(/Client Secret was sent as the bearer token/);
		expect(
			JSON.stringify({
				message: error.message,
				description: error.description,
				context: error.context,
			}),
		).not.toContain(sim.defaultKey.clientSecret);
	});

	it('Retry-After is read as seconds or as an HTTP date', () => {
		expect(retryAfterMs('3')).toBe(3000);
		// an HTTP date counts from n8n's clock (Date.now): pinned 10 s before it
		jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1, 0, 0, 0));
		expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString())).toBe(10000);
		expect(retryAfterMs('soon')).toBeUndefined();
		expect(retryAfterMs(undefined)).toBeUndefined();
	});
});
