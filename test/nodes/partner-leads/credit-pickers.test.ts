import type { INodeParameters } from 'n8n-workflow';
import { N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { LEADS_SAMPLED } from '../../../nodes/shared/leadSample';
import {
	createParameters,
	editorContext,
	pageSizeOf,
	requestsToRead,
	routeCount,
} from '../../support/fixtures';

describe('PartnerLeads: Partner Organization and Agent pickers (listSearch)', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 31 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	function pickers(parameters: INodeParameters = {}) {
		const { context, methods } = editorContext(
			harness,
			{ resource: 'lead', operation: 'create', ...parameters },
			'parameters.agentId',
		);
		return {
			organizations: async (filter?: string) =>
				await methods.listSearch!.searchPartnerOrganizations.call(context, filter),
			agents: async (filter?: string) =>
				await methods.listSearch!.searchAgents.call(context, filter),
		};
	}

	it('offer the IDs credited on existing leads, most used first, with how many leads carry each', async () => {
		const org = sim.defaultPartnerOrganization;
		const [agentA, agentB] = sim.defaultAgents;
		const other = sim.otherPartnerOrganization;
		sim.control.seedLeads([
			{ partnerOrganizationId: other.id, agentId: sim.otherAgent.id },
			{ partnerOrganizationId: org.id, agentId: agentB.id },
			{ partnerOrganizationId: org.id, agentId: agentA.id },
			{ partnerOrganizationId: org.id, agentId: agentB.id },
			{ partnerOrganizationId: org.id, agentId: agentA.id },
			{ partnerOrganizationId: org.id, agentId: agentB.id },
		]);

		const { organizations, agents } = pickers();
		expect((await organizations()).results).toEqual([
			{ name: `${org.id} (on 5 leads)`, value: org.id },
			{ name: `${other.id} (on 1 lead)`, value: other.id },
		]);
		expect((await agents()).results.map((result) => result.value)).toEqual([
			agentB.id,
			agentA.id,
			sim.otherAgent.id,
		]);
		expect((await organizations(other.id.slice(-6))).results.map((result) => result.value)).toEqual(
			[other.id],
		);
	});

	it('the agent list keeps to the chosen partner organization, by ID or from the list', async () => {
		const org = sim.defaultPartnerOrganization;
		const [agentA] = sim.defaultAgents;
		sim.control.seedLeads([
			{ partnerOrganizationId: org.id, agentId: agentA.id },
			{ partnerOrganizationId: sim.otherPartnerOrganization.id, agentId: sim.otherAgent.id },
		]);
		for (const partnerOrganizationId of [org.id, { __rl: true, mode: 'list', value: org.id }]) {
			const { agents } = pickers({ partnerOrganizationId } as INodeParameters);
			expect((await agents()).results).toEqual([
				{ name: `${agentA.id} (on 1 lead)`, value: agentA.id },
			]);
		}
	});

	it('read a bounded number of leads, not the whole portal', async () => {
		sim.control.seedLeads(1200);
		sim.control.resetStats();
		await pickers().organizations();
		// the first LEADS_SAMPLED leads, whatever page size the service answers with
		expect(LEADS_SAMPLED).toBeLessThan(1200);
		expect(routeCount(sim, 'GET /leads')).toBe(requestsToRead(LEADS_SAMPLED, pageSizeOf(sim)));
	});

	it('a lead created with values picked from the lists credits them', async () => {
		const org = sim.defaultPartnerOrganization;
		const agent = sim.defaultAgents[1];
		const run = await harness.runNode({
			parameters: createParameters(sim, undefined, {
				partnerOrganizationId: {
					__rl: true,
					mode: 'list',
					value: org.id,
					cachedResultName: org.id,
				},
				agentId: { __rl: true, mode: 'id', value: agent.id },
			}),
			items: [{ first: 'Grace', last: 'Hopper', email: 'grace@example.com' }],
		});
		expect(run.error).toBeUndefined();
		const stored = sim.control.getLead(run.items[0].json.id as string);
		expect(stored).toMatchObject({ partnerOrganizationId: org.id, agentId: agent.id });
	});
});
