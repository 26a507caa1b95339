/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** The resource locators' "From List" as the editor asks for it, through n8n's own REST API. */
import assert from 'node:assert/strict';

import { ACTION_NODE_TYPE } from '../workflows';
import type { Scenario } from './context';

export const listSearches: Scenario = {
	name: "resource locator lists: the editor's lead, partner organization and agent lists come from the service",
	async run({ rest, sim, credential }) {
		const org = sim.otherPartnerOrganization;
		const agent = sim.otherAgent;
		const [lead] = sim.control.seedLeads([
			{
				firstName: 'Listed',
				lastName: 'Lead',
				email: 'listed.lead@example.com',
				partnerOrganizationId: org.id,
				agentId: agent.id,
			},
		]);
		const ask = async (
			methodName: string,
			path: string,
			parameters: Record<string, unknown>,
			filter?: string,
		) =>
			await rest.resourceLocatorResults({
				nodeType: ACTION_NODE_TYPE,
				methodName,
				path,
				currentNodeParameters: { resource: 'lead', ...parameters },
				credentials: { partnerLeadsApi: credential },
				filter,
			});

		const leads = await ask(
			'searchLeads',
			'parameters.leadId',
			{ operation: 'get' },
			'listed.lead',
		);
		assert.deepEqual(leads, [{ name: 'Listed Lead <listed.lead@example.com>', value: lead!.id }]);

		const organizations = await ask(
			'searchPartnerOrganizations',
			'parameters.partnerOrganizationId',
			{ operation: 'create' },
		);
		assert.ok(
			organizations.some(
				(result) => result.value === org.id && /on \d+ leads?\)$/.test(result.name),
			),
			`the partner organization list lacks ${org.id}: ${JSON.stringify(organizations)}`,
		);

		const agents = await ask('searchAgents', 'parameters.agentId', {
			operation: 'create',
			partnerOrganizationId: { __rl: true, mode: 'list', value: org.id },
		});
		assert.deepEqual(
			agents.map((result) => result.value),
			[agent.id],
			'the agent list should hold only the agents credited on leads of the chosen partner organization',
		);
	},
};
