import type { IDataObject, INodeListSearchResult, INodeParameters } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { type AnswerRewrite, startRecordingProxy } from './proxy';
import {
	editorContext,
	errorItemIndex,
	expectListRequests,
	getLeadOfItem,
	jsonOf,
	listedLeadIds,
	listRequestsFor,
	pageSizeOf,
	pairedIndexes,
	requestsToRead,
	routeCount,
} from '../../support/fixtures';

describe('PartnerLeads: Lead > Get, Get Many and the lead picker', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 12 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	describe('Get', () => {
		it('without Simplify returns the whole lead, by ID or picked from the list', async () => {
			const [first, second] = sim.control.seedLeads(2);
			const run = await harness.runNode({
				parameters: getLeadOfItem({ simplify: false }),
				items: [{ id: first.id }, { id: second.id }],
			});
			expect(run.error).toBeUndefined();
			expect(jsonOf(run)).toEqual([
				JSON.parse(JSON.stringify(sim.control.getLead(first.id))),
				JSON.parse(JSON.stringify(sim.control.getLead(second.id))),
			]);
			expect(pairedIndexes(run)).toEqual([0, 1]);

			const picked = await harness.runNode({
				parameters: {
					resource: 'lead',
					operation: 'get',
					leadId: { __rl: true, mode: 'list', value: second.id },
				},
			});
			expect(picked.items[0].json.id).toBe(second.id);
		});

		it('Simplify (on by default) returns the main fields, the name joined, and no custom fields', async () => {
			const [lead] = sim.control.seedLeads(1);
			const stored = JSON.parse(JSON.stringify(sim.control.getLead(lead.id))) as IDataObject;
			expect(stored.customFields).toBeDefined();
			const run = await harness.runNode({
				parameters: {
					resource: 'lead',
					operation: 'get',
					leadId: { __rl: true, mode: 'id', value: lead.id },
				},
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
			for (const key of Object.keys(expected))
				if (expected[key] === undefined) delete expected[key];
			expect(simple).toEqual(expected);
			expect(Object.keys(simple).length).toBeLessThanOrEqual(10);
		});

		it('an unknown ID says the lead does not exist; Continue On Fail keeps going', async () => {
			const [lead] = sim.control.seedLeads(1);
			const parameters = getLeadOfItem();
			const failed = await harness.runNode({
				parameters,
				items: [{ id: lead.id }, { id: 'no-such-lead' }],
			});
			expect(failed.error?.message).toBe('The lead no-such-lead does not exist');
			expect(errorItemIndex(failed)).toBe(1);

			const run = await harness.runNode({
				parameters,
				items: [{ id: 'no-such-lead' }, { id: lead.id }],
				continueOnFail: true,
			});
			expect(run.error).toBeUndefined();
			expect(jsonOf(run)[0]).toMatchObject({
				error: 'The lead no-such-lead does not exist',
				httpCode: '404',
			});
			expect(jsonOf(run)[1].id).toBe(lead.id);
			expect(pairedIndexes(run)).toEqual([0, 1]);
		});

		it('an ID that resolves to nothing fails before any request', async () => {
			const run = await harness.runNode({
				parameters: getLeadOfItem(),
				items: [{ name: 'no id here' }],
			});
			expect(run.error?.message).toBe("No lead chosen in 'Lead'");
			expect(routeCount(sim, 'GET /leads/:id')).toBe(0);
		});
	});

	describe('Get Many', () => {
		it("Return All over 5,000 leads: all of them, in the service's order, each once, one pass", async () => {
			sim.control.seedLeads(5000);
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true },
			});
			expect(run.error).toBeUndefined();
			expect(run.items.map((item) => item.json.id)).toEqual(listedLeadIds(sim));
			// one pass: each page reads the last lead of the page before again (see listRequestsFor)
			expectListRequests(routeCount(sim, 'GET /leads'), listRequestsFor(sim, 5000));
			expect(run.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(
				true,
			);
		}, 90_000); // pages of 7: about 830 requests, on a shared machine

		/** Get Many through a proxy that may rewrite the service's answers: the run, the requests sent. */
		async function getManyViaProxy(parameters: INodeParameters, rewrite?: AnswerRewrite) {
			const proxy = await startRecordingProxy(sim.url, rewrite);
			try {
				const viaProxy = new N8nHarness(sim, {
					baseUrl: `${proxy.origin}/prod`,
					audience: sim.url,
				});
				const run = await viaProxy.runNode({
					parameters: { resource: 'lead', operation: 'getMany', ...parameters },
				});
				return { run, requests: proxy.requests, origin: proxy.origin };
			} finally {
				await proxy.close();
			}
		}

		/** Return All, `beforeListRequest` (counted from 0) called before each list request is served; the ids, each once. */
		async function returnAllWhile(beforeListRequest: (index: number) => void): Promise<string[]> {
			let listRequests = 0;
			const { run } = await getManyViaProxy({ returnAll: true }, (request) => {
				if (request.method === 'GET' && request.url.includes('/leads?'))
					beforeListRequest(listRequests++);
				return undefined;
			});
			expect(run.error).toBeUndefined();
			const ids = run.items.map((item) => item.json.id as string);
			expect(new Set(ids).size).toBe(ids.length);
			return ids;
		}

		it('Return All misses no lead when leads it has passed are deleted in the portal meanwhile', async () => {
			// enough leads that some are left: every list request, read-ahead ones too, deletes some
			sim.control.seedLeads(900);
			const returned = new Set(
				await returnAllWhile((index) => {
					// 1, 2 or 3 leads gone behind the position before each page
					const gone = (index % 3) + 1;
					for (const lead of sim.control.listLeads().slice(0, gone))
						sim.control.portalDeleteLead(lead.id);
				}),
			);
			// every lead still held after the listing was returned (the deleted ones may or may not be)
			expect(sim.control.listLeads().filter((lead) => !returned.has(lead.id))).toEqual([]);
			expect(sim.control.listLeads().length).toBeGreaterThan(0);
		});

		it('Return All misses no lead when a whole page of leads behind it is deleted at once', async () => {
			sim.control.seedLeads(300);
			const returned = await returnAllWhile((index) => {
				if (index !== 2) return;
				// more leads than a page holds, all already passed by the listing
				for (const lead of sim.control.listLeads().slice(0, 2 * pageSizeOf(sim)))
					sim.control.portalDeleteLead(lead.id);
			});
			expect(sim.control.listLeads().filter((lead) => !returned.includes(lead.id))).toEqual([]);
		});

		it('Limit 150 returns exactly the first 150, in as few requests as the pages allow', async () => {
			sim.control.seedLeads(400);
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: false, limit: 150 },
			});
			expect(run.items.map((item) => item.json.id)).toEqual(listedLeadIds(sim).slice(0, 150));
			const pageSize = pageSizeOf(sim);
			expect(routeCount(sim, 'GET /leads')).toBe(
				pageSize >= 150 ? 1 : 1 + Math.ceil((150 - pageSize) / (pageSize - 1)),
			);
		});

		it('with a Limit, the last request asks only for the rest (and the lead it reads again)', async () => {
			sim.control.seedLeads(400);
			const { run, requests, origin } = await getManyViaProxy({ limit: 150 });
			expect(run.items).toHaveLength(150);
			const lists = requests.filter(
				(request) => request.method === 'GET' && /\/leads\?/.test(request.url),
			);
			const pageSize = pageSizeOf(sim);
			const lastSkip = pageSize + (lists.length - 2) * (pageSize - 1) - 1;
			expect(new URL(lists[0].url, origin).search).toBe('?skip=0&limit=100');
			expect(new URL(lists[lists.length - 1].url, origin).search).toBe(
				`?skip=${lastSkip}&limit=${150 - lastSkip}`,
			);
		});

		it('a Limit above what exists returns everything there is', async () => {
			sim.control.seedLeads(30);
			const run = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', limit: 50 },
			});
			expect(run.items.map((item) => item.json.id)).toEqual(listedLeadIds(sim));
			// a short page does not end the list: unless the service says so, one more request finds nothing after it
			expectListRequests(
				routeCount(sim, 'GET /leads'),
				listRequestsFor(sim, 30, pageSizeOf(sim, 50)),
			);
		});

		it('a page shorter than asked does not end the list', async () => {
			sim.control.seedLeads(260);
			// a service that answers 60 leads to the first request only, then full pages
			let first = true;
			const { run } = await getManyViaProxy({ returnAll: true }, (request, status, body) => {
				if (!(first && request.method === 'GET' && request.url.includes('/leads?')))
					return undefined;
				first = false;
				const parsed = JSON.parse(body) as { data?: unknown[] } | unknown[];
				if (Array.isArray(parsed)) return { status, body: JSON.stringify(parsed.slice(0, 5)) };
				return {
					status,
					body: JSON.stringify({
						...parsed,
						data: parsed.data?.slice(0, 5),
						hasMore: undefined,
						next: undefined,
					}),
				};
			});
			expect(run.items.map((item) => item.json.id)).toEqual(listedLeadIds(sim));
		});
		it('Simplify returns the key fields; without it, the whole lead', async () => {
			const [lead] = sim.control.seedLeads([
				{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', value: 10 },
			]);
			const simple = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true },
			});
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
			const full = await harness.runNode({
				parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false },
			});
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

			const won = await harness.runNode({
				parameters: { ...base, returnAll: true, filters: { status: 'won' } },
			});
			expect(won.items).toHaveLength(9);

			const recentWon = await harness.runNode({
				parameters: {
					...base,
					returnAll: true,
					filters: { status: 'WON', createdAfter: '2024-01-01T00:00:00', agentId: agent.id },
				},
			});
			expect(recentWon.items.map((item) => Date.parse(item.json.createdAt as string))).toEqual(
				Array(5).fill(Date.parse('2024-06-01T00:00:00.000Z')),
			);
			// requests that read as far as the n-th lead of the organization, in the service's order
			const listed = listedLeadIds(sim).map((id) => sim.control.getLead(id)!);
			const positionOfMatch = (n: number, matches: (lead: (typeof listed)[number]) => boolean) =>
				listed
					.map((lead, position) => (matches(lead) ? position : -1))
					.filter((position) => position >= 0)[n - 1];

			sim.control.resetStats();
			const firstTwo = await harness.runNode({
				parameters: {
					...base,
					returnAll: false,
					limit: 2,
					filters: { partnerOrganizationId: org.id },
				},
			});
			expect(firstTwo.items).toHaveLength(2);
			const secondOfOrg = positionOfMatch(2, (lead) => lead.partnerOrganizationId === org.id);
			expectListRequests(
				routeCount(sim, 'GET /leads'),
				requestsToRead(secondOfOrg + 1, pageSizeOf(sim)),
			);

			sim.control.resetStats();
			const later = await harness.runNode({
				parameters: {
					...base,
					returnAll: false,
					limit: 3,
					filters: { createdAfter: '2024-01-01', status: 'won' },
				},
			});
			expect(later.items).toHaveLength(3);
			const thirdRecentWon = positionOfMatch(
				3,
				(lead) => lead.status === 'Won' && lead.createdAt.startsWith('2024'),
			);
			expectListRequests(
				routeCount(sim, 'GET /leads'),
				requestsToRead(thirdRecentWon + 1, pageSizeOf(sim)),
			);

			const none = await harness.runNode({
				parameters: { ...base, returnAll: true, filters: { updatedAfter: '2030-01-01T00:00:00Z' } },
			});
			expect(none.items).toHaveLength(0);
		});

		it('a filter date that is not a date is reported', async () => {
			sim.control.seedLeads(1);
			const run = await harness.runNode({
				parameters: {
					resource: 'lead',
					operation: 'getMany',
					returnAll: true,
					filters: { createdAfter: 'last tuesday' },
				},
			});
			expect(run.error?.message).toBe('\'Created After\' is not a date: "last tuesday"');
		});
	});

	describe('lead picker (listSearch searchLeads)', () => {
		async function search(filter?: string, token?: string): Promise<INodeListSearchResult> {
			const { context, methods } = editorContext(
				harness,
				{ resource: 'lead', operation: 'get' },
				'parameters.leadId',
			);
			return await methods.listSearch!.searchLeads.call(context, filter, token);
		}

		/** Follows the pagination tokens the way the editor does when the user scrolls, to the end. */
		async function searchToTheEnd(
			filter?: string,
		): Promise<{ names: string[]; values: string[]; calls: number }> {
			const names: string[] = [];
			const values: string[] = [];
			let token: string | undefined;
			let calls = 0;
			do {
				const answer = await search(filter, token);
				calls++;
				names.push(...answer.results.map((result) => result.name));
				values.push(...answer.results.map((result) => String(result.value)));
				token = answer.paginationToken as string | undefined;
			} while (token !== undefined && calls < 100);
			return { names, values, calls };
		}

		it('without a filter: a first screen of leads, and scrolling reaches every lead once', async () => {
			sim.control.seedLeads([{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }]);
			sim.control.seedLeads(150);
			const first = await search();
			expect(first.results.length).toBeGreaterThanOrEqual(Math.min(50, 151));
			const ada = sim.control.listLeads()[0];
			if (sim.personality.listOrder !== 'newestFirst')
				expect(first.results[0]).toEqual({ name: 'Ada Lovelace <ada@example.com>', value: ada.id });
			expect(first.paginationToken).toEqual(expect.any(String));
			const all = await searchToTheEnd();
			expect(all.values).toEqual(listedLeadIds(sim));
			expect(all.names).toContain('Ada Lovelace <ada@example.com>');
		});

		it('searches names and e-mails anywhere in the list, continuing with the token', async () => {
			sim.control.seedLeads(250);
			sim.control.seedLeads([
				{ firstName: 'Ximena', lastName: 'Quasar', email: 'xq@navy.example' },
			]);
			sim.control.seedLeads(600);
			sim.control.seedLeads([{ firstName: 'Ximena', lastName: 'Kelly', email: 'xk@example.com' }]);

			const found = await searchToTheEnd('ximena');
			expect(found.names.sort()).toEqual([
				'Ximena Kelly <xk@example.com>',
				'Ximena Quasar <xq@navy.example>',
			]);
			// one call reads at most 500 leads, so the 852 leads take more than one
			expect(found.calls).toBeGreaterThan(1);
			expect((await searchToTheEnd('NAVY.example')).names).toEqual([
				'Ximena Quasar <xq@navy.example>',
			]);
			expect((await searchToTheEnd('ximena kelly')).names).toEqual([
				'Ximena Kelly <xk@example.com>',
			]);
			expect((await searchToTheEnd('nobody-has-this')).names).toEqual([]);
		});
	});
});
