import type { IDataObject, INodeListSearchResult } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { startRecordingProxy } from './proxy';
import { editorContext, errorItemIndex, jsonOf, pairedIndexes, resetEditorCache, routeCount } from './fixtures';

describe('PartnerLeads: Lead > Get, Get Many and the lead picker', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 12 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		resetEditorCache();
		harness = new N8nHarness(sim);
	});

	describe('Get', () => {
		it('without Simplify returns the whole lead, by ID or picked from the list', async () => {
			const [first, second] = sim.control.seedLeads(2);
			const run = await harness.runNode({
				parameters: {
					resource: 'lead',
					operation: 'get',
					leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
					simplify: false,
				},
				items: [{ id: first.id }, { id: second.id }],
			});
			expect(run.error).toBeUndefined();
			expect(jsonOf(run)).toEqual([
				JSON.parse(JSON.stringify(sim.control.getLead(first.id))),
				JSON.parse(JSON.stringify(sim.control.getLead(second.id))),
			]);
			expect(pairedIndexes(run)).toEqual([0, 1]);

			const picked = await harness.runNode({
				parameters: { resource: 'lead', operation: 'get', leadId: { __rl: true, mode: 'list', value: second.id } },
			});
			expect(picked.items[0].json.id).toBe(second.id);
		});

		it('Simplify (on by default) returns the main fields, the name joined, and no custom fields', async () => {
			const [lead] = sim.control.seedLeads(1);
			const stored = JSON.parse(JSON.stringify(sim.control.getLead(lead.id))) as IDataObject;
			expect(stored.customFields).toBeDefined();
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'get', leadId: { __rl: true, mode: 'id', value: lead.id } },
			});
			expect(run.error).toBeUndefined();
			const [simple] = jsonOf(run);
			const expected: IDataObject = {
				id: stored.id,
				name: [stored.firstName, stored.lastName].filter(Boolean).join(' '),
				email: stored.email,
				status: stored.status,
				value: stored.value,
				partnerOrganizationId: stored.partnerOrganizationId,
				agentId: stored.agentId,
				createdAt: stored.createdAt,
				updatedAt: stored.updatedAt,
			};
			for (const key of Object.keys(expected)) if (expected[key] === undefined) delete expected[key];
			expect(simple).toEqual(expected);
			expect(Object.keys(simple).length).toBeLessThanOrEqual(10);
		});

		it('an unknown ID says the lead does not exist; Continue On Fail keeps going', async () => {
			const [lead] = sim.control.seedLeads(1);
			const parameters = { resource: 'lead', operation: 'get', leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } };
			const failed = await harness.runNode({ parameters, items: [{ id: lead.id }, { id: 'no-such-lead' }] });
			expect(failed.error?.message).toBe('The lead no-such-lead does not exist');
			expect(errorItemIndex(failed)).toBe(1);

			const run = await harness.runNode({ parameters, items: [{ id: 'no-such-lead' }, { id: lead.id }], continueOnFail: true });
			expect(run.error).toBeUndefined();
			expect(jsonOf(run)[0]).toMatchObject({ error: 'The lead no-such-lead does not exist', httpCode: '404' });
			expect(jsonOf(run)[1].id).toBe(lead.id);
			expect(pairedIndexes(run)).toEqual([0, 1]);
		});

		it('an ID that resolves to nothing fails before any request', async () => {
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'get', leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
				items: [{ name: 'no id here' }],
			});
			expect(run.error?.message).toBe("No lead chosen in 'Lead'");
			expect(routeCount(sim, 'GET /leads/:id')).toBe(0);
		});
	});

	describe('Get Many', () => {
		it('Return All over 5,000 leads: all of them, in order, no duplicates, no gaps, one pass', async () => {
			sim.control.seedLeads(5000);
			const expected = sim.control.listLeads().map((lead) => lead.id);
			const run = await harness.runNode({ parameters: { resource: 'lead', operation: 'getMany', returnAll: true } });
			expect(run.error).toBeUndefined();
			const ids = run.items.map((item) => item.json.id);
			expect(ids).toHaveLength(5000);
			expect(new Set(ids).size).toBe(5000);
			expect(ids).toEqual(expected);
			// one pass: a page of 100, then pages with 90 new leads (10 of the page before read again), the last one short
			expect(routeCount(sim, 'GET /leads')).toBe(56);
			expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		});

		it('Return All misses no lead when leads it has passed are deleted in the portal meanwhile', async () => {
			sim.control.seedLeads(450);
			const proxy = await startRecordingProxy(sim.url, (request) => {
				if (request.method === 'GET' && request.url.includes('/leads?')) {
					for (const lead of sim.control.listLeads().slice(0, 3)) sim.control.portalDeleteLead(lead.id);
				}
				return undefined;
			});
			try {
				const viaProxy = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
				const run = await viaProxy.runNode({ parameters: { resource: 'lead', operation: 'getMany', returnAll: true } });
				expect(run.error).toBeUndefined();
				const ids = run.items.map((item) => item.json.id as string);
				expect(new Set(ids).size).toBe(ids.length);
				// every lead still held after the listing was returned (the deleted ones may or may not be)
				const returned = new Set(ids);
				expect(sim.control.listLeads().filter((lead) => !returned.has(lead.id))).toEqual([]);
			} finally {
				await proxy.close();
			}
		});

		it('Limit 150 makes exactly two list requests and returns the first 150', async () => {
			sim.control.seedLeads(400);
			const run = await harness.runNode({ parameters: { resource: 'lead', operation: 'getMany', returnAll: false, limit: 150 } });
			expect(run.items.map((item) => item.json.id)).toEqual(sim.control.listLeads().slice(0, 150).map((lead) => lead.id));
			expect(routeCount(sim, 'GET /leads')).toBe(2);
		});

		it('with a Limit, the last request asks only for the rest (and the 10 leads it reads again)', async () => {
			sim.control.seedLeads(400);
			const proxy = await startRecordingProxy(sim.url);
			try {
				const viaProxy = new N8nHarness(sim, { baseUrl: `${proxy.origin}/prod`, audience: sim.url });
				const run = await viaProxy.runNode({ parameters: { resource: 'lead', operation: 'getMany', limit: 150 } });
				expect(run.items).toHaveLength(150);
				const lists = proxy.requests.filter((request) => request.method === 'GET' && /\/leads\?/.test(request.url));
				expect(lists.map((request) => new URL(request.url, proxy.origin).search)).toEqual(['?skip=0&limit=100', '?skip=90&limit=60']);
			} finally {
				await proxy.close();
			}
		});

		it('a Limit above what exists needs one request', async () => {
			sim.control.seedLeads(30);
			const run = await harness.runNode({ parameters: { resource: 'lead', operation: 'getMany', limit: 50 } });
			expect(run.items).toHaveLength(30);
			expect(routeCount(sim, 'GET /leads')).toBe(1);
		});

		it('Simplify returns the key fields; without it, the whole lead', async () => {
			const [lead] = sim.control.seedLeads([{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', value: 10 }]);
			const simple = await harness.runNode({ parameters: { resource: 'lead', operation: 'getMany', returnAll: true } });
			expect(simple.items[0].json).toEqual({
				id: lead.id,
				name: 'Ada Lovelace',
				email: 'ada@example.com',
				status: lead.status,
				value: 10,
				partnerOrganizationId: lead.partnerOrganizationId,
				agentId: lead.agentId,
				createdAt: lead.createdAt,
				updatedAt: lead.updatedAt,
			});
			const full = await harness.runNode({ parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false } });
			expect(full.items[0].json).toEqual(JSON.parse(JSON.stringify(sim.control.getLead(lead.id))));
		});

		it('filters are applied to every page; with a Limit, paging goes on until enough leads match', async () => {
			const org = sim.control.addPartnerOrganization({ name: 'Filtered org' });
			const agent = sim.control.addAgent(org.id);
			const seeds = Array.from({ length: 450 }, (_, n) => ({
				status: n % 50 === 0 ? 'Won' : 'active',
				createdAt: n < 200 ? '2023-01-01T00:00:00.000Z' : '2024-06-01T00:00:00.000Z',
				updatedAt: '2024-06-02T00:00:00.000Z',
				...(n % 50 === 0 ? { partnerOrganizationId: org.id, agentId: agent.id } : {}),
			}));
			sim.control.seedLeads(seeds);
			const base = { resource: 'lead', operation: 'getMany', simplify: false };

			const won = await harness.runNode({ parameters: { ...base, returnAll: true, filters: { status: 'won' } } });
			expect(won.items).toHaveLength(9);

			const recentWon = await harness.runNode({
				parameters: { ...base, returnAll: true, filters: { status: 'WON', createdAfter: '2024-01-01T00:00:00', agentId: agent.id } },
			});
			expect(recentWon.items.map((item) => item.json.createdAt)).toEqual(Array(5).fill('2024-06-01T00:00:00.000Z'));

			sim.control.resetStats();
			const firstTwo = await harness.runNode({
				parameters: { ...base, returnAll: false, limit: 2, filters: { partnerOrganizationId: org.id } },
			});
			expect(firstTwo.items).toHaveLength(2);
			expect(routeCount(sim, 'GET /leads')).toBe(1); // leads 0 and 50 are both on the first page

			sim.control.resetStats();
			const later = await harness.runNode({
				parameters: { ...base, returnAll: false, limit: 3, filters: { createdAfter: '2024-01-01', status: 'won' } },
			});
			expect(later.items).toHaveLength(3);
			expect(routeCount(sim, 'GET /leads')).toBe(4); // matches at 200, 250, 300 (page 4 has 300)

			const none = await harness.runNode({ parameters: { ...base, returnAll: true, filters: { updatedAfter: '2030-01-01T00:00:00Z' } } });
			expect(none.items).toHaveLength(0);
		});

		it('a filter date that is not a date is reported', async () => {
			sim.control.seedLeads(1);
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true, filters: { createdAfter: 'last tuesday' } },
			});
			expect(run.error?.message).toBe('\'Created After\' is not a date: "last tuesday"');
		});
	});

	describe('lead picker (listSearch searchLeads)', () => {
		async function search(filter?: string, token?: string): Promise<INodeListSearchResult> {
			const { context, methods } = editorContext(harness, { resource: 'lead', operation: 'get' }, 'parameters.leadId');
			return await methods.listSearch!.searchLeads.call(context, filter, token);
		}

		it('without a filter: one page of leads with a token for the next', async () => {
			sim.control.seedLeads([{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }]);
			sim.control.seedLeads(150);
			const first = await search();
			expect(first.results).toHaveLength(100);
			expect(first.results[0]).toEqual({ name: 'Ada Lovelace <ada@example.com>', value: sim.control.listLeads()[0].id });
			expect(first.paginationToken).toBe('100');
			const rest = await search(undefined, first.paginationToken as string);
			expect(rest.results).toHaveLength(51);
			expect(rest.paginationToken).toBeUndefined();
		});

		it('searches names and e-mails beyond the first page, and continues with the token', async () => {
			sim.control.seedLeads(250);
			sim.control.seedLeads([{ firstName: 'Ximena', lastName: 'Quasar', email: 'xq@navy.example' }]);
			sim.control.seedLeads(600);
			sim.control.seedLeads([{ firstName: 'Ximena', lastName: 'Kelly', email: 'xk@example.com' }]);

			const found = await search('ximena');
			expect(found.results.map((result) => result.name)).toEqual(['Ximena Quasar <xq@navy.example>']);
			expect(found.paginationToken).toBe('500');
			const more = await search('Ximena', found.paginationToken as string);
			expect(more.results.map((result) => result.name)).toEqual(['Ximena Kelly <xk@example.com>']);
			expect(more.paginationToken).toBeUndefined();

			expect((await search('NAVY.example')).results).toHaveLength(1);
			expect((await search('ximena kelly')).results).toHaveLength(0); // within the first five pages there is none
		});
	});
});
