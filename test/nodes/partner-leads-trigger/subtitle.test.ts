import type { INode, INodeType } from 'n8n-workflow';
import { N8nHarness, TRIGGER_NODE_TYPE } from '../../harness/harness';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';

describe('PartnerLeadsTrigger: the subtitle on the canvas', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 41 });
		harness = new N8nHarness(sim);
	});
	afterAll(async () => await sim.close());

	function subtitleFor(events: string[]): unknown {
		const nodeType = harness.nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1) as INodeType;
		const node: INode = {
			id: 'trigger',
			name: 'Partner Referral Service Trigger',
			type: TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { events },
		};
		const workflow = harness.workflow([node], {});
		return workflow.expression.getSimpleParameterValue(
			node,
			nodeType.description.subtitle,
			'manual',
			{},
		);
	}

	it('names the chosen events as the Events option shows them, not by their topic values', () => {
		expect(subtitleFor(['lead/create'])).toBe('Lead Created');
		expect(subtitleFor(['lead/create', 'lead/update', 'lead/delete'])).toBe(
			'Lead Created, Lead Updated, Lead Deleted',
		);
		expect(subtitleFor([])).toBe('');
	});
});
