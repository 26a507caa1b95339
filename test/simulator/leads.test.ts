import { startSimulator } from './index';
import {
	apiClient,
	detail,
	detailFields,
	expectError,
	sleep,
	tokenFor,
	validLead,
} from './test-helpers';
import type { Simulator } from './types';

/** Spec section 4: get, update (PATCH) and list leads; paging by skip/limit, where a short page is not the end. */

let sim: Simulator;
let client: ReturnType<typeof apiClient>;

beforeAll(async () => {
	sim = await startSimulator({ personality: 'default', seed: 3 });
});
afterAll(() => sim.close());
beforeEach(async () => {
	sim.control.reset();
	client = apiClient(sim, await tokenFor(sim));
});

describe('get lead', () => {
	it('returns the lead, and 404 naming an unknown id', async () => {
		const created = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const answer = await client.api('GET', `/leads/${created.id}`);
		expect(answer.status).toBe(200);
		expect(answer.body.data).toEqual(created);
		expectError(
			await client.api('GET', '/leads/000000000000000000000000'),
			404,
			'not_found',
			/000000000000000000000000/,
		);
	});
});

describe('update lead', () => {
	it('changes only the given fields, merges customFields, bumps updatedAt', async () => {
		const created = (
			await client.api(
				'POST',
				'/leads',
				validLead(sim, { value: 10, customFields: { industry: 'saas', employeeCount: 5 } }),
			)
		).body.data;
		const answer = await client.api('PATCH', `/leads/${created.id}`, {
			value: 99,
			customFields: { employeeCount: 50 },
		});
		expect(answer.status).toBe(200);
		expect(answer.body.data).toEqual({
			...created,
			value: 99,
			customFields: { industry: 'saas', employeeCount: 50 },
			updatedAt: expect.any(String),
		});
		expect(Date.parse(answer.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
		expect((await client.api('GET', `/leads/${created.id}`)).body.data).toEqual(answer.body.data);
	});

	it('clears an optional field with null and refuses to clear a required one', async () => {
		const created = (
			await client.api(
				'POST',
				'/leads',
				validLead(sim, { phone: '123', customFields: { industry: 'saas' } }),
			)
		).body.data;
		const cleared = await client.api('PATCH', `/leads/${created.id}`, {
			phone: null,
			customFields: { industry: null },
		});
		expect(cleared.body.data.phone).toBeUndefined();
		expect(cleared.body.data.customFields).toEqual({});
		expectError(
			await client.api('PATCH', `/leads/${created.id}`, { firstName: null }),
			400,
			'validation_failed',
			/cannot be cleared/,
		);
	});

	it('applies the type, picklist and updateable rules', async () => {
		const created = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const answer = await client.api('PATCH', `/leads/${created.id}`, {
			platform: 'zoho',
			value: '5',
			customFields: { internalScore: 1 },
		});
		expectError(answer, 400, 'validation_failed');
		expect(detailFields(answer).sort()).toEqual(['internalScore', 'platform', 'value']);
		expect(detail(answer, 'internalScore')).toMatch(/cannot be changed/);
	});

	it('checks that a changed agent belongs to the organization', async () => {
		const created = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const answer = await client.api('PATCH', `/leads/${created.id}`, {
			agentId: sim.otherAgent.id,
		});
		expectError(answer, 400, 'validation_failed', /does not belong to partner organization/);
		const moved = await client.api('PATCH', `/leads/${created.id}`, {
			partnerOrganizationId: sim.otherPartnerOrganization.id,
			agentId: sim.otherAgent.id,
		});
		expect(moved.status).toBe(200);
	});

	it('answers 404 for an unknown id and 415 for a non-JSON body', async () => {
		expectError(await client.api('PATCH', '/leads/abc', { value: 1 }), 404, 'not_found', /"abc"/);
		const created = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const answer = await client.api('PATCH', `/leads/${created.id}`, undefined, {
			'content-type': 'text/plain',
		});
		expectError(answer, 415, 'unsupported_content_type');
	});
});

describe('list leads', () => {
	it('pages oldest first with skip and limit; a short page ends the list', async () => {
		const seeded = sim.control.seedLeads(45);
		const first = await client.api('GET', '/leads');
		expect(first.body.data.map((l: { id: string }) => l.id)).toEqual(
			seeded.slice(0, 20).map((l) => l.id),
		);
		const ids: string[] = [];
		for (let skip = 0; ; skip += 20) {
			const page = (await client.api('GET', `/leads?skip=${skip}&limit=20`)).body.data as Array<{
				id: string;
			}>;
			ids.push(...page.map((l) => l.id));
			if (page.length < 20) break;
		}
		expect(ids).toEqual(seeded.map((l) => l.id));
		expect((await client.api('GET', '/leads?skip=40&limit=20')).body.data).toHaveLength(5);
		expect((await client.api('GET', '/leads?skip=100')).body.data).toEqual([]);
		expect((await client.api('GET', '/leads?limit=100')).body.data).toHaveLength(45);
	});

	it('lists API-created leads after seeded ones in creation order', async () => {
		sim.control.seedLeads(2);
		const created = (await client.api('POST', '/leads', validLead(sim))).body.data;
		const page = (await client.api('GET', '/leads')).body.data;
		expect(page).toHaveLength(3);
		expect(page[2]).toEqual(created);
	});

	it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'skip=-1', 'skip=x', 'skip=1&skip=2'])(
		'refuses %s',
		async (query) => {
			const answer = await client.api('GET', `/leads?${query}`);
			const field = query.split('=')[0];
			expectError(answer, 400, 'validation_failed', new RegExp(`${field} must be`));
			expect(detailFields(answer)).toEqual([field]);
		},
	);

	it('pages through 500,000 leads anywhere in the list (its speed is measured by the benchmarks)', async () => {
		// seeded a part at a time: a loop held for seconds would let the server close the client's
		// kept-alive socket just as the next request goes out on it
		const seeded: Array<{ id: string }> = [];
		for (let part = 0; part < 20; part++) {
			seeded.push(...sim.control.seedLeads(25_000));
			await sleep(0);
		}
		const last = await client.api('GET', '/leads?skip=499990&limit=100');
		expect(last.body.data).toHaveLength(10);
		for (let i = 0; i < 20; i++) {
			const page = await client.api('GET', `/leads?skip=${i * 25_000}&limit=100`);
			expect(page.body.data).toHaveLength(100);
			expect(page.body.data[0].id).toBe(seeded[i * 25_000].id);
		}
	});
});
