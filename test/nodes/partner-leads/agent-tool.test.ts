import { ACTION_TOOL_NODE_TYPE, N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import {
	createParameters,
	jsonOf,
	mapper,
	people,
	personFromItem,
	routeCount,
} from '../../support/fixtures';

/**
 * The action node as an AI Agent's tool (the `…partnerLeadsTool` type n8n derives from
 * `usableAsTool`). An agent reads the tool's output, never n8n's error panel: each failure
 * must be an output the model can read and fix its next call from.
 */
describe('PartnerLeads as an AI Agent tool', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 25 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	const asTool = { type: ACTION_TOOL_NODE_TYPE };

	it('a picklist value outside the schema: the output names the field and lists the allowed values; nothing is sent', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: createParameters(sim, { ...personFromItem, industry: 'banking' }),
			items: people(1),
		});
		expect(run.error).toBeUndefined();
		const [result] = jsonOf(run);
		// labels are listed where the schema has them (picklist options as objects)
		expect(result.error).toMatch(
			/^Invalid lead field: Industry \(industry\) must be one of: saas( \(SaaS\))?, fintech( \(Fintech\))?, healthcare( \(Healthcare\))?, retail( \(Retail\))? \(got "banking"\)$/,
		);
		expect(result.hint).toContain('call the tool again');
		expect(routeCount(sim, 'POST /leads')).toBe(0);
	});

	it('the corrected call creates the lead', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: createParameters(sim, { ...personFromItem, industry: 'Fintech' }),
			items: people(1),
		});
		expect(run.error).toBeUndefined();
		const [lead] = jsonOf(run);
		expect(lead.error).toBeUndefined();
		expect(sim.control.getLead(String(lead.id))?.customFields).toMatchObject({
			industry: 'fintech',
		});
	});

	it('a required field missing: the output names it', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: createParameters(sim, { firstName: 'Ada', email: 'ada@example.com' }),
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0].error).toBe(
			'Invalid lead field: Last name (lastName) is required but has no value',
		);
	});

	it('an agent of another partner organization: the output says how to fix it', async () => {
		const org = sim.control.addPartnerOrganization({ name: 'Other' });
		const agent = sim.control.addAgent(org.id, { name: 'Other agent' });
		const run = await harness.runNode({
			...asTool,
			parameters: createParameters(sim, personFromItem, { agentId: agent.id }),
			items: people(1),
		});
		expect(run.error).toBeUndefined();
		const [result] = jsonOf(run);
		expect(result.error).toContain('does not belong to partner organization');
		expect(result.description).toContain(
			"The agent must belong to the partner organization sent with it: give the organization's ID in 'Partner Organization' and one of its agents in 'Agent'",
		);
	});

	it('an unknown lead id on Get: the output says so', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: {
				resource: 'lead',
				operation: 'get',
				leadId: { __rl: true, mode: 'id', value: 'no-such-lead' },
			},
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0].error).toBe('The lead no-such-lead does not exist');
	});

	it('webhook subscriptions are not open to an agent: no subscription, no signing secret in the output', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: {
				resource: 'webhookSubscription',
				operation: 'create',
				topic: 'lead/create',
				url: 'https://example.com/hook',
			},
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([
			expect.objectContaining({
				error: '"webhookSubscription" is not available to an AI Agent',
			}),
		]);
		expect(sim.control.listSubscriptions()).toHaveLength(0);
	});

	it('in a workflow (not a tool) a bad value still stops the run, as before', async () => {
		const run = await harness.runNode({
			parameters: createParameters(sim, { ...personFromItem, industry: 'banking' }),
			items: people(1),
		});
		expect(run.error?.message).toContain('Industry (industry) must be one of');
		expect(run.items).toHaveLength(0);
	});

	it('the mapper value the editor stores for $fromAI-filled fields is read like any other', async () => {
		const run = await harness.runNode({
			...asTool,
			parameters: {
				...createParameters(sim),
				leadFields: mapper({
					firstName: 'Grace',
					lastName: 'Hopper',
					email: 'grace@example.com',
					platform: 'salesforce',
					interests: 'automation, security',
				}),
			},
			items: [{}],
		});
		expect(run.error).toBeUndefined();
		const [lead] = jsonOf(run);
		expect(lead).toMatchObject({ firstName: 'Grace', platform: 'salesforce' });
		expect(lead.customFields).toMatchObject({ interests: ['automation', 'security'] });
	});
});
