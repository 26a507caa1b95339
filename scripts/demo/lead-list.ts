import type { IDataObject } from 'n8n-workflow';

import type { Simulator } from '../../test/simulator/types';

/** The value the demo's Update step gives the first lead it reads back. */
export const UPDATED_DEAL_VALUE = 45000;

/**
 * The leads the demo pushes, as a spreadsheet or CRM export would hand them to n8n: one
 * object per row, keys named like the portal's lead fields so Lead Fields can map them
 * automatically. Three rows are wrong on purpose, each in a different way, to show what
 * the user sees: two are caught by the node before sending, one only by the service.
 */
export function demoLeadList(sim: Simulator): IDataObject[] {
	const organization = sim.defaultPartnerOrganization.id;
	const [agent, secondAgent] = sim.defaultAgents;
	const credited = { partnerOrganizationId: organization, agentId: agent.id };
	return [
		{
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@analytical.example.com',
			platform: 'hubspot',
			value: 12000,
			industry: 'saas',
			...credited,
		},
		{
			firstName: 'Grace',
			lastName: 'Hopper',
			email: 'grace@cobol.example.com',
			platform: 'salesforce',
			value: 30000,
			industry: 'fintech',
			...credited,
		},
		// Not one of the Platform picklist values.
		{
			firstName: 'Alan',
			lastName: 'Turing',
			email: 'alan@bletchley.example.com',
			platform: 'myspace',
			...credited,
		},
		// Email is required by the portal's schema.
		{ firstName: 'Katherine', lastName: 'Johnson', platform: 'pipedrive', ...credited },
		{
			firstName: 'Barbara',
			lastName: 'Liskov',
			email: 'barbara@clu.example.com',
			platform: 'pipedrive',
			value: 8000,
			...credited,
			agentId: (secondAgent ?? agent).id,
		},
		// The agent belongs to another partner organization: only the service knows that.
		{
			firstName: 'Edsger',
			lastName: 'Dijkstra',
			email: 'edsger@semaphore.example.com',
			platform: 'other',
			partnerOrganizationId: organization,
			agentId: sim.otherAgent.id,
		},
		{
			firstName: 'Margaret',
			lastName: 'Hamilton',
			email: 'margaret@apollo.example.com',
			platform: 'other',
			value: 52000,
			industry: 'healthcare',
			...credited,
		},
	];
}

/** "First Last", as the account names a row. */
export function rowName(row: IDataObject | undefined): string {
	return (
		[row?.firstName, row?.lastName]
			.filter((part) => typeof part === 'string' && part !== '')
			.join(' ') || '(no name)'
	);
}
