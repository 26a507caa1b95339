/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code: runs in Node next to n8n, never inside it, never shipped */
import { N8nHarness, ownKey } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { SchemaField, Simulator } from '../../simulator/types';
import {
	createParameters,
	credit,
	errorItemIndex,
	jsonOf,
	mapper,
	pairedIndexes,
	people,
	personFromItem,
	routeCount,
} from '../../support/fixtures';

describe('PartnerLeads: Lead > Create', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 11 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	it('sends standard fields at the top and custom fields under customFields, converting obvious values', async () => {
		const run = await harness.runNode({
			parameters: createParameters(sim, {
				...personFromItem,
				phone: 5551234,
				platform: 'HubSpot', // the label: the value is sent
				value: '1200.50',
				closeDate: '2024-06-30T00:00:00', // n8n's date picker: the date is sent
				industry: 'saas',
				employeeCount: '42',
				isEnterprise: 'true',
				interests: 'analytics, security',
				lastContactedAt: '2024-05-01T09:30:00',
				referralNotes: '',
			}),
			items: [{ first: 'Ada', last: 'Lovelace', email: 'ada@example.com' }],
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		expect(pairedIndexes(run)).toEqual([0]);
		const lead = run.items[0].json;
		expect(lead).toMatchObject({
			firstName: 'Ada',
			email: 'ada@example.com',
			phone: '5551234',
			platform: 'hubspot',
			value: 1200.5,
			closeDate: '2024-06-30',
			status: 'active',
			...credit(sim),
			customFields: {
				industry: 'saas',
				employeeCount: 42,
				isEnterprise: true,
				interests: ['analytics', 'security'],
				lastContactedAt: '2024-05-01T09:30:00.000Z',
			},
		});
		// the empty referralNotes was not sent
		expect(lead.customFields).not.toHaveProperty('referralNotes');
		expect(sim.control.getLead(lead.id as string)?.customFields.employeeCount).toBe(42);
	});

	it('maps input keys automatically, including a customFields object, and takes partner and agent from the item', async () => {
		const run = await harness.runNode({
			parameters: {
				resource: 'lead',
				operation: 'create',
				leadFields: mapper(null, 'autoMapInputData'),
			},
			items: [
				{
					firstName: 'Grace',
					lastName: 'Hopper',
					email: 'grace@example.com',
					source: 'not a schema field: ignored',
					internalScore: 99, // not creatable: not taken
					customFields: { industry: 'fintech' },
					employeeCount: 7,
					...credit(sim),
				},
			],
		});
		expect(run.error).toBeUndefined();
		const stored = sim.control.getLead(run.items[0].json.id as string);
		expect(stored).toMatchObject({
			firstName: 'Grace',
			...credit(sim),
			customFields: { industry: 'fintech', employeeCount: 7 },
		});
		expect(stored?.customFields).not.toHaveProperty('internalScore');
	});

	describe('checks every item against the schema before sending anything', () => {
		it('a missing required field is named by label and field id', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, { lastName: 'Lovelace', email: 'ada@example.com' }),
				items: [{}],
			});
			expect(run.error?.message).toBe(
				'Invalid lead field: First name (firstName) is required but has no value',
			);
			expect(errorItemIndex(run)).toBe(0);
			expect(routeCount(sim, 'POST /leads')).toBe(0);
		});

		it('a picklist value outside the schema lists the allowed values', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, { ...personFromItem, industry: 'banking' }),
				items: people(1),
			});
			// a service that lists options as bare strings gives no labels
			const allowed =
				sim.personality.picklistShape === 'options-strings'
					? 'saas, fintech, healthcare, retail'
					: 'saas (SaaS), fintech (Fintech), healthcare (Healthcare), retail (Retail)';
			expect(run.error?.message).toContain(
				`Industry (industry) must be one of: ${allowed} (got "banking")`,
			);
		});

		it('a value of the wrong type names the field and the expected type', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, {
					...personFromItem,
					employeeCount: 'a dozen',
					isEnterprise: 'maybe',
					email: 'not-an-email',
					interests: ['analytics', 'chess'],
				}),
				items: people(1),
			});
			const message = run.error?.message ?? '';
			expect(message).toContain(
				'Employee count (employeeCount) must be a number ("a dozen" cannot be read as a number)',
			);
			expect(message).toContain('Enterprise account (isEnterprise) must be true or false');
			expect(message).toContain('Email (email) must be an e-mail address');
			expect(message).toContain('Interests (interests) takes only values from');
			expect(message).toContain('"chess"');
			expect(routeCount(sim, 'POST /leads')).toBe(0);
		});

		it('a field the schema marks not creatable is refused', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, { ...personFromItem, internalScore: 5 }),
				items: people(1),
			});
			expect(run.error?.message).toContain(
				'Internal score (internalScore) cannot be set when a lead is created',
			);
		});

		it('one bad item among many stops the run before any lead is written, naming the item', async () => {
			const items = people(5);
			items[3] = { first: 'NoEmail', last: 'X' };
			const run = await harness.runNode({ parameters: createParameters(sim), items });
			expect(run.error?.message).toContain('Email (email) is required');
			expect(errorItemIndex(run)).toBe(3);
			expect(routeCount(sim, 'POST /leads')).toBe(0);
			expect(sim.control.listLeads()).toHaveLength(0);
		});
	});

	describe("the service's own validation errors", () => {
		it('an agent of another partner organization: the service says which field', async () => {
			const org = sim.control.addPartnerOrganization({ name: 'Other' });
			const agent = sim.control.addAgent(org.id, { name: 'Other agent' });
			const run = await harness.runNode({
				parameters: createParameters(sim, personFromItem, { agentId: agent.id }),
				items: people(1),
			});
			// the field is named where the service says it (JSON details); a text or HTML answer carries only its message
			const field = sim.personality.errorBodies === 'json' ? 'agentId: ' : '';
			expect(run.error?.message).toMatch(
				new RegExp(
					`^The service rejected the new lead: ${field}.*does not belong to partner organization`,
				),
			);
			expect(run.error?.description).toContain('Fix the listed fields');
			expect(run.error?.description).toContain(
				'The agent must belong to the partner organization sent with it',
			);
			expect(errorItemIndex(run)).toBe(0);
		});

		it('a self-serve key without partner organization and agent', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, personFromItem, {
					partnerOrganizationId: '',
					agentId: '',
				}),
				items: people(1),
			});
			expect(run.error?.message).toContain('partnerOrganizationId');
			expect(run.error?.message).toContain('self-serve');
		});
	});

	it('Continue On Fail: failing items become error items in place, the others go on; one credential read', async () => {
		const org = sim.control.addPartnerOrganization({ name: 'Other' });
		const foreignAgent = sim.control.addAgent(org.id).id;
		const items = [
			{ first: 'A', last: 'One', email: 'a1@example.com', agent: sim.defaultAgents[0].id },
			{ first: 'B', last: 'Two', email: 'broken', agent: sim.defaultAgents[0].id },
			{ first: 'C', last: 'Three', email: 'c3@example.com', agent: sim.defaultAgents[0].id },
			{ first: 'D', last: 'Four', email: 'd4@example.com', agent: foreignAgent },
		];
		const readsBefore = harness.credentialsHelper.decryptions;
		const run = await harness.runNode({
			parameters: createParameters(sim, personFromItem, { agentId: '={{ $json.agent }}' }),
			items,
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(harness.credentialsHelper.decryptions - readsBefore).toBe(1);
		expect(pairedIndexes(run)).toEqual([0, 1, 2, 3]);
		const [first, second, third, fourth] = jsonOf(run);
		expect(first.email).toBe('a1@example.com');
		expect(second.error).toContain('Email (email) must be an e-mail address');
		expect(second.description).toContain('Lead Schema > Get');
		expect(third.email).toBe('c3@example.com');
		expect(fourth.error).toContain('does not belong to partner organization');
		expect(fourth.httpCode).toBe('400');
		expect(sim.control.listLeads()).toHaveLength(2);
	});

	it('without Continue On Fail, a service failure stops the run at that item (Parallel Requests 1)', async () => {
		const org = sim.control.addPartnerOrganization();
		const foreignAgent = sim.control.addAgent(org.id).id;
		const agents = [sim.defaultAgents[0].id, foreignAgent, sim.defaultAgents[0].id];
		const items = people(3).map((item, n) => ({ ...item, agent: agents[n] }));
		const run = await harness.runNode({
			parameters: createParameters(sim, personFromItem, {
				agentId: '={{ $json.agent }}',
				options: { parallelRequests: 1 },
			}),
			items,
		});
		expect(errorItemIndex(run)).toBe(1);
		expect(run.error?.message).toContain('does not belong');
		expect(routeCount(sim, 'POST /leads')).toBe(2);
		expect(sim.control.listLeads()).toHaveLength(1);
	});

	it('200 items: one schema request, 200 creates, one token request, the credential read once per node run', async () => {
		harness = new N8nHarness(sim, ownKey(sim)); // no token held for its key yet
		const readsBefore = harness.credentialsHelper.decryptions;
		const run = await harness.runNode({ parameters: createParameters(sim), items: people(200) });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(200);
		expect(pairedIndexes(run)).toEqual(Array.from({ length: 200 }, (_, n) => n));
		const stats = sim.control.stats();
		expect(stats.byRoute['GET /schema/lead']).toBe(1);
		expect(stats.byRoute['POST /leads']).toBe(200);
		expect(stats.tokenRequests).toBe(1);
		expect(harness.credentialsHelper.preAuthenticationCalls).toBe(1);
		expect(harness.credentialsHelper.decryptions - readsBefore).toBe(1);
	});

	describe('Parallel Requests', () => {
		const project = (run: Awaited<ReturnType<N8nHarness['runNode']>>) =>
			jsonOf(run).map(({ firstName, lastName, email, status, customFields }) => ({
				firstName,
				lastName,
				email,
				status,
				customFields,
			}));

		async function createAll(parallelRequests: number) {
			sim.control.reset();
			sim.control.setFaults('POST /leads', { latencyMs: 3 });
			const run = await harness.runNode({
				parameters: createParameters(
					sim,
					{ ...personFromItem, employeeCount: '={{ $itemIndex }}' },
					{ options: { parallelRequests } },
				),
				items: people(60),
			});
			expect(run.error).toBeUndefined();
			return run;
		}

		it('gives the same output in the same order as sequential', async () => {
			const sequential = project(await createAll(1));
			const parallel = await createAll(8);
			expect(project(parallel)).toEqual(sequential);
			expect(pairedIndexes(parallel)).toEqual(Array.from({ length: 60 }, (_, n) => n));
			expect(sim.control.listLeads()).toHaveLength(60);
		});

		it('still the same under injected 429s, and every lead is created exactly once', async () => {
			const sequential = project(await createAll(1));
			sim.control.reset();
			sim.control.setFaults('POST /leads', { rate429: 0.3, retryAfterSeconds: 0 });
			const run = await harness.runNode({
				parameters: createParameters(
					sim,
					{ ...personFromItem, employeeCount: '={{ $itemIndex }}' },
					{ options: { parallelRequests: 8 } },
				),
				items: people(60),
			});
			expect(run.error).toBeUndefined();
			expect(project(run)).toEqual(sequential);
			const statuses = sim.control.stats().statusesByRoute['POST /leads'];
			expect(statuses[429]).toBeGreaterThan(0);
			expect(statuses[sim.personality.leadCreateStatus]).toBe(60);
			const emails = sim.control.listLeads().map((lead) => lead.email);
			expect(new Set(emails).size).toBe(60);
		});
	});

	describe('portal schemas in other shapes', () => {
		const portalSchema: SchemaField[] = [
			{
				fieldId: 'firstName',
				label: 'First name',
				type: 'string',
				required: true,
				creatable: true,
				updateable: true,
			},
			{
				fieldId: 'email',
				label: 'Email',
				type: 'email',
				required: true,
				creatable: true,
				updateable: true,
			},
			{
				fieldId: 'tier',
				label: 'Partner tier',
				type: 'picklist',
				required: true,
				creatable: true,
				updateable: true,
				picklistValues: [
					{ value: 'gold', label: 'Gold' },
					{ value: 'silver', label: 'Silver' },
				],
			},
			{
				fieldId: 'notes',
				label: 'Notes',
				type: 'textarea',
				required: false,
				creatable: true,
				updateable: true,
				isCustom: true,
			},
			{
				fieldId: 'score',
				label: 'Score',
				type: 'rating-stars',
				required: false,
				creatable: true,
				updateable: true,
			},
		];

		beforeEach(() => {
			sim.control.setSchema(portalSchema);
			// The same schema as the client sees it: no envelope, options as strings or under `values`.
			sim.control.setRawSchemaResponse({
				unifiedFields: [
					{ fieldId: 'firstName', label: 'First name', type: 'string', required: true },
					{ fieldId: 'email', label: 'Email', type: 'email', required: true },
					{
						fieldId: 'tier',
						label: 'Partner tier',
						type: 'picklist',
						required: true,
						values: ['gold', { value: 'silver', label: 'Silver' }],
					},
					{ fieldId: 'notes', label: 'Notes', type: 'textarea', isCustom: true },
					{ fieldId: 'score', label: 'Score', type: 'rating-stars' },
				],
			});
		});

		it('reads them, sends an isCustom standard id under customFields and treats an unknown type as text', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, {
					firstName: 'Ada',
					email: 'ada@example.com',
					tier: 'SILVER',
					notes: 'met at fair',
					score: 5,
				}),
				items: [{}],
			});
			expect(run.error).toBeUndefined();
			const stored = sim.control.getLead(run.items[0].json.id as string);
			expect(stored?.customFields).toEqual({ tier: 'silver', notes: 'met at fair', score: '5' });
			expect(stored).not.toHaveProperty('notes');
		});

		it('lists the allowed values of a string-shaped picklist', async () => {
			const run = await harness.runNode({
				parameters: createParameters(sim, {
					firstName: 'Ada',
					email: 'ada@example.com',
					tier: 'bronze',
				}),
				items: [{}],
			});
			expect(run.error?.message).toBe(
				'Invalid lead field: Partner tier (tier) must be one of: gold, silver (Silver) (got "bronze")',
			);
		});

		it('a schema answer without a field list is reported as such', async () => {
			sim.control.setRawSchemaResponse({ data: { something: 'else' } });
			const run = await harness.runNode({ parameters: createParameters(sim), items: people(1) });
			expect(run.error?.message).toBe('The lead schema answer has no list of fields');
			expect(routeCount(sim, 'POST /leads')).toBe(0);
		});
	});

	it('a failed token exchange names the credential fields and never shows the secret', async () => {
		const secret = 'super-secret-value-123456';
		const wrong = new N8nHarness(sim, { clientSecret: secret });
		const run = await wrong.runNode({ parameters: createParameters(sim), items: people(1) });
		expect(run.error?.message).toContain("'Client ID' or 'Client Secret'");
		expect(JSON.stringify(run.error)).not.toContain(secret);
		expect(routeCount(sim, 'POST /leads')).toBe(0);
	});
});
