import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { N8nHarness, ownKey } from '../../harness/harness';
import { DEFAULT_LEAD_SCHEMA, startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import {
	credit,
	errorItemIndex,
	expectListRequests,
	jsonOf,
	listRequestsFor,
	mapper,
	pairedIndexes,
	personFromItem,
	routeCount,
} from '../../support/fixtures';
import { startRecordingProxy } from './proxy';

describe('PartnerLeads: Lead > Update and Create or Update', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 13 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	function updateParameters(value: IDataObject, extra: INodeParameters = {}): INodeParameters {
		return {
			resource: 'lead',
			operation: 'update',
			leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			leadFields: mapper(value),
			...extra,
		} as INodeParameters;
	}

	describe('Update', () => {
		it('changes only the given fields; empty values are not sent', async () => {
			const [lead] = sim.control.seedLeads([
				{ firstName: 'Ada', value: 10, customFields: { industry: 'saas', employeeCount: 3 } },
			]);
			const run = await harness.runNode({
				parameters: updateParameters({
					value: '20',
					industry: 'Fintech',
					firstName: '',
					lastName: null,
					employeeCount: '={{ $json.count }}',
				}),
				items: [{ id: lead.id, count: '' }],
			});
			expect(run.error).toBeUndefined();
			expect(run.items[0].json).toMatchObject({
				id: lead.id,
				firstName: 'Ada',
				lastName: lead.lastName,
				value: 20,
			});
			expect(run.items[0].json.customFields).toEqual({ industry: 'fintech', employeeCount: 3 });
			expect(sim.control.getLead(lead.id)?.value).toBe(20);
			// a service that answers the PATCH without the whole lead: the node fetches it
			expect(routeCount(sim, 'GET /leads/:id')).toBe(
				sim.personality.patchAnswer === 'full' ? 0 : 1,
			);
		});

		it('maps input keys automatically, partner and agent included', async () => {
			const [lead] = sim.control.seedLeads(1);
			const org = sim.control.addPartnerOrganization();
			const agent = sim.control.addAgent(org.id);
			const run = await harness.runNode({
				parameters: updateParameters({}, { leadFields: mapper(null, 'autoMapInputData') }),
				items: [
					{
						id: lead.id,
						value: 30,
						customFields: { employeeCount: '5' },
						partnerOrganizationId: org.id,
						agentId: agent.id,
					},
				],
			});
			expect(run.error).toBeUndefined();
			expect(sim.control.getLead(lead.id)).toMatchObject({
				value: 30,
				partnerOrganizationId: org.id,
				agentId: agent.id,
				customFields: { employeeCount: 5 },
			});
		});

		it('refuses fields the schema marks not updateable, and an update with nothing to change', async () => {
			const [lead] = sim.control.seedLeads(1);
			const locked = await harness.runNode({
				parameters: updateParameters({ internalScore: 3 }),
				items: [{ id: lead.id }],
			});
			expect(locked.error?.message).toBe(
				'Invalid lead field: Internal score (internalScore) cannot be changed (the lead schema marks it not updateable)',
			);
			const empty = await harness.runNode({
				parameters: updateParameters({ firstName: '' }),
				items: [{ id: lead.id }],
			});
			expect(empty.error?.message).toBe('Nothing to update: no lead field has a value');
			expect(routeCount(sim, 'PATCH /leads/:id')).toBe(0);
		});

		it('an unknown lead says so', async () => {
			const run = await harness.runNode({
				parameters: updateParameters({ value: 1 }),
				items: [{ id: 'missing-lead' }],
			});
			expect(run.error?.message).toBe('The lead missing-lead does not exist');
			expect(errorItemIndex(run)).toBe(0);
		});

		it('an empty or partial PATCH answer: the lead is fetched again', async () => {
			let idOfEmptyAnswer = '';
			const proxy = await startRecordingProxy(sim.url, (request, status) => {
				if (request.method !== 'PATCH') return undefined;
				const id = decodeURIComponent(request.url.split('/leads/')[1].split('?')[0]);
				return request.url.includes(idOfEmptyAnswer)
					? { status: 204, body: '' }
					: { status, body: JSON.stringify({ data: { id } }) };
			});
			try {
				const [first, second] = sim.control.seedLeads(2);
				idOfEmptyAnswer = first.id;
				const viaProxy = new N8nHarness(sim, {
					baseUrl: `${proxy.origin}/prod`,
					audience: sim.url,
				});
				const run = await viaProxy.runNode({
					parameters: updateParameters({ value: 77 }),
					items: [{ id: first.id }, { id: second.id }],
				});
				expect(run.error).toBeUndefined();
				expect(jsonOf(run)).toEqual([
					JSON.parse(JSON.stringify(sim.control.getLead(first.id))),
					JSON.parse(JSON.stringify(sim.control.getLead(second.id))),
				]);
				expect(jsonOf(run).map((lead) => lead.value)).toEqual([77, 77]);
				expect(routeCount(sim, 'GET /leads/:id')).toBe(2);
			} finally {
				await proxy.close();
			}
		});
	});

	describe('Create or Update', () => {
		function upsertParameters(
			extra: INodeParameters = {},
			value: IDataObject = personFromItem,
		): INodeParameters {
			return {
				resource: 'lead',
				operation: 'upsert',
				matchField: 'email',
				...credit(sim),
				leadFields: mapper(value),
				...extra,
			} as INodeParameters;
		}

		it('finds a lead although leads behind the listing were deleted in the portal meanwhile', async () => {
			const existing = sim.control.seedLeads(250);
			const targets = [existing[100], existing[191], existing[240]];
			const targetIds = new Set(targets.map((lead) => lead.id));
			const proxy = await startRecordingProxy(sim.url, (request) => {
				// before each page, two of the oldest leads (the ones a listing passes first) are deleted in the portal
				if (request.method === 'GET' && request.url.includes('/leads?')) {
					const passed = sim.control
						.listLeads()
						.filter((lead) => !targetIds.has(lead.id))
						.slice(0, 2);
					for (const lead of passed) sim.control.portalDeleteLead(lead.id);
				}
				return undefined;
			});
			try {
				const viaProxy = new N8nHarness(sim, {
					baseUrl: `${proxy.origin}/prod`,
					audience: sim.url,
				});
				// without the anchor, the first leads of every next page would be skipped by the shift
				const items = targets.map((lead) => ({ first: 'Found', last: 'Again', email: lead.email }));
				const run = await viaProxy.runNode({ parameters: upsertParameters(), items });
				expect(run.error).toBeUndefined();
				expect(jsonOf(run).map((lead) => lead._action)).toEqual(['updated', 'updated', 'updated']);
				for (const lead of targets) {
					expect(sim.control.listLeads().filter((held) => held.email === lead.email)).toHaveLength(
						1,
					);
				}
			} finally {
				await proxy.close();
			}
		});

		it('200 items against 1,000 leads: one pass over the list, the right created/updated split', async () => {
			harness = new N8nHarness(sim, ownKey(sim)); // no token held for its key yet
			const existing = sim.control.seedLeads(1000);
			const items = Array.from({ length: 200 }, (_, n) =>
				n % 2 === 0
					? { first: `Known${n}`, last: 'Lead', email: existing[n * 3].email!.toUpperCase() } // e-mails match in any case
					: { first: `New${n}`, last: 'Lead', email: `new${n}@example.com` },
			);
			const run = await harness.runNode({ parameters: upsertParameters(), items });
			expect(run.error).toBeUndefined();
			const actions = jsonOf(run).map((lead) => lead._action);
			expect(actions).toEqual(items.map((_, n) => (n % 2 === 0 ? 'updated' : 'created')));
			expect(jsonOf(run)[0]).toMatchObject({ id: existing[0].id, firstName: 'Known0' });
			expect(pairedIndexes(run)).toEqual(items.map((_, n) => n));
			const stats = sim.control.stats();
			// one pass over the list (see listRequestsFor)
			expectListRequests(stats.byRoute['GET /leads'], listRequestsFor(sim, 1000));
			expect(stats.byRoute['GET /schema/lead']).toBe(1);
			expect(stats.byRoute['POST /leads']).toBe(100);
			expect(stats.byRoute['PATCH /leads/:id']).toBe(100);
			expect(stats.tokenRequests).toBe(1);
			expect(sim.control.listLeads()).toHaveLength(1100);
		});

		it.each([1, 4])(
			'two new items with the same e-mail: one create, then one update (parallel %i)',
			async (parallelRequests) => {
				const items = [
					{ first: 'First', last: 'Copy', email: 'same@example.com' },
					{ first: 'Other', last: 'Person', email: 'other@example.com' },
					{ first: 'Second', last: 'Copy', email: ' SAME@example.com ' },
				];
				const run = await harness.runNode({
					parameters: upsertParameters({ options: { parallelRequests } }),
					items,
				});
				expect(run.error).toBeUndefined();
				expect(jsonOf(run).map((lead) => lead._action)).toEqual(['created', 'created', 'updated']);
				expect(jsonOf(run)[2].id).toBe(jsonOf(run)[0].id);
				// (in any order: a service may list leads created together in the order they changed)
				const stored = sim.control.listLeads().map((lead) => [lead.email, lead.firstName]);
				expect(stored.sort()).toEqual([
					['SAME@example.com', 'Second'], // the update sends the item's values, trimmed
					['other@example.com', 'Other'],
				]);
			},
		);

		it('matches on a custom field', async () => {
			sim.control.setSchema([
				...DEFAULT_LEAD_SCHEMA,
				{
					fieldId: 'externalId',
					label: 'External ID',
					type: 'string',
					required: false,
					creatable: true,
					updateable: true,
				},
			]);
			const [known] = sim.control.seedLeads([{ customFields: { externalId: 'crm-1' } }]);
			const run = await harness.runNode({
				parameters: upsertParameters(
					{ matchField: 'externalId' },
					{ ...personFromItem, externalId: '={{ $json.ext }}' },
				),
				items: [
					{ first: 'A', last: 'B', email: 'a@example.com', ext: 'crm-1' },
					{ first: 'C', last: 'D', email: 'c@example.com', ext: 'crm-2' },
				],
			});
			expect(run.error).toBeUndefined();
			expect(jsonOf(run).map((lead) => [lead._action, lead.id === known.id])).toEqual([
				['updated', true],
				['created', false],
			]);
		});

		it('an item without a match value, or a new lead without its required fields, fails with the field named', async () => {
			const [known] = sim.control.seedLeads(1);
			const run = await harness.runNode({
				parameters: upsertParameters(),
				items: [
					{ first: 'No', last: 'Email' },
					{ last: 'Only', email: known.email }, // exists: no required field needed
					{ last: 'Only', email: 'brand-new@example.com' },
				],
				continueOnFail: true,
			});
			const [first, second, third] = jsonOf(run);
			expect(first.error).toBe('Email (email) has no value, so the lead cannot be matched');
			expect(second).toMatchObject({ _action: 'updated', id: known.id, lastName: 'Only' });
			expect(third.error).toBe(
				'Invalid lead field: First name (firstName) is required but has no value',
			);
			expect(pairedIndexes(run)).toEqual([0, 1, 2]);
		});

		it('a Match Field that cannot identify a lead is refused before any request but the schema', async () => {
			const run = await harness.runNode({
				parameters: upsertParameters({ matchField: 'isEnterprise' }),
				items: [{}],
			});
			expect(run.error?.message).toBe('Cannot match leads on "isEnterprise"');
			expect(routeCount(sim, 'GET /leads')).toBe(0);
			const unknown = await harness.runNode({
				parameters: upsertParameters({ matchField: 'nope' }),
				items: [{}],
				continueOnFail: true,
			});
			expect(jsonOf(unknown)[0].error).toBe('Cannot match leads on "nope"');
		});

		it('parallel gives the same output as sequential, also under injected 429s', async () => {
			const project = (leads: IDataObject[]) =>
				leads.map(({ email, firstName, _action }) => ({ email, firstName, _action }));
			async function upsertAll(parallelRequests: number, faults: boolean) {
				sim.control.reset();
				const existing = sim.control.seedLeads(50);
				if (faults) {
					sim.control.setFaults('POST /leads', { rate429: 0.3, retryAfterSeconds: 0 });
					sim.control.setFaults('PATCH /leads/:id', { rate429: 0.3, retryAfterSeconds: 0 });
				}
				const items = Array.from({ length: 40 }, (_, n) => ({
					first: `P${n}`,
					last: 'Q',
					email: n % 3 === 0 ? existing[n].email : `dup${n % 7}@example.com`,
				}));
				const run = await harness.runNode({
					parameters: upsertParameters({ options: { parallelRequests } }),
					items,
				});
				expect(run.error).toBeUndefined();
				return project(jsonOf(run));
			}
			const sequential = await upsertAll(1, false);
			expect(await upsertAll(8, false)).toEqual(sequential);
			expect(await upsertAll(8, true)).toEqual(sequential);
			const statuses = sim.control.stats().statusesByRoute;
			expect(
				(statuses['POST /leads'][429] ?? 0) + (statuses['PATCH /leads/:id'][429] ?? 0),
			).toBeGreaterThan(0);
			const creates = sequential.filter((lead) => lead._action === 'created');
			expect(creates).toHaveLength(7); // dup0..dup6, each created once
		});

		it('200 items with repeated match values at the default concurrency: no duplicate lead, the output in input order', async () => {
			sim.control.reset();
			const existing = sim.control.seedLeads(30);
			// 60 match values, each on 3 or 4 items spread over the input; 20 of them exist already
			const emailOf = (n: number) =>
				n % 60 < 20 ? existing[n % 60].email! : `repeat${n % 60}@example.com`;
			const items = Array.from({ length: 200 }, (_, n) => ({
				first: `R${n}`,
				last: 'Repeat',
				// the same value in other letter cases and with spaces is the same match value
				email: n % 2 === 0 ? emailOf(n) : ` ${emailOf(n).toUpperCase()} `,
			}));
			sim.control.setFaults('POST /leads', { latencyMs: 5 });
			const run = await harness.runNode({ parameters: upsertParameters(), items });
			expect(run.error).toBeUndefined();
			expect(pairedIndexes(run)).toEqual(items.map((_, n) => n));
			const byEmail = new Map<string, number>();
			for (const lead of sim.control.listLeads()) {
				const key = String(lead.email).toLowerCase();
				byEmail.set(key, (byEmail.get(key) ?? 0) + 1);
			}
			expect([...byEmail.values()].filter((count) => count > 1)).toEqual([]);
			expect(sim.control.listLeads()).toHaveLength(30 + 40);
			const actions = jsonOf(run).map((lead) => lead._action);
			// the first item of each new value creates it, every later one updates it
			expect(actions).toEqual(
				items.map((_, n) => (n % 60 >= 20 && n < 60 ? 'created' : 'updated')),
			);
			expect(sim.control.stats().byRoute['POST /leads']).toBe(40);
		});
	});
});
