import type { INode, INodeType } from 'n8n-workflow';

import { PartnerLeads } from '../../../nodes/PartnerLeads/PartnerLeads.node';
import * as lead from '../../../nodes/PartnerLeads/actions/lead';
import * as leadSchema from '../../../nodes/PartnerLeads/actions/leadSchema';
import * as webhookSubscription from '../../../nodes/PartnerLeads/actions/webhookSubscription';
import { ACTION_NODE_TYPE, N8nHarness } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { subtitleExpression } from './subtitle';

describe('PartnerLeads: the subtitle on the canvas reads as a sentence', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 42 });
		harness = new N8nHarness(sim);
	});
	afterAll(async () => await sim.close());

	function subtitleFor(resource: string, operation: string): unknown {
		const nodeType = harness.nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1) as INodeType;
		const node: INode = {
			id: 'action',
			name: 'Partner Referral Service',
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource, operation },
		};
		return harness
			.workflow([node], {})
			.expression.getSimpleParameterValue(node, nodeType.description.subtitle, 'manual', {});
	}

	it("is each operation's action, the words the node panel lists it by", () => {
		expect(subtitleFor('lead', 'upsert')).toBe('Create or update a lead');
		expect(subtitleFor('lead', 'getMany')).toBe('Get many leads');
		expect(subtitleFor('leadSchema', 'get')).toBe('Get the lead schema');
		expect(subtitleFor('webhookSubscription', 'delete')).toBe('Delete a webhook subscription');
		expect(subtitleFor('lead', 'archive')).toBe('archive');
	});

	it("keeps its table equal to the operations' actions (n8n's lint wants one literal)", () => {
		expect(new PartnerLeads().description.subtitle).toBe(
			subtitleExpression([
				...lead.description,
				...leadSchema.description,
				...webhookSubscription.description,
			]),
		);
	});
});
