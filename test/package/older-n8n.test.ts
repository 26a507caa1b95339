/* eslint-disable @typescript-eslint/no-require-imports -- jest.isolateModules loads the nodes anew, under the n8n-workflow mocked for it */
import type { INodeType } from 'n8n-workflow';

/**
 * n8n loads the package with its own n8n-workflow. Before n8n 1.85 that has no
 * `NodeConnectionTypes` (1.82.3, the floor `npm run floor` runs, ships n8n-workflow 1.80.1):
 * the nodes must load there too, naming the main connection by its text, 'main'.
 */

type NodeClass = new () => INodeType;

function loadNodes(workflowModule: () => object): Record<string, INodeType> {
	let nodes: Record<string, INodeType> = {};
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', workflowModule);
		const load = (path: string, name: string) =>
			new (require(path) as Record<string, NodeClass>)[name]();
		nodes = {
			action: load('../../nodes/PartnerLeads/PartnerLeads.node', 'PartnerLeads'),
			trigger: load(
				'../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node',
				'PartnerLeadsTrigger',
			),
			polling: load(
				'../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node',
				'PartnerLeadsPollingTrigger',
			),
		};
	});
	jest.dontMock('n8n-workflow');
	return nodes;
}

function connections(nodes: Record<string, INodeType>) {
	return Object.fromEntries(
		Object.entries(nodes).map(([key, node]) => [
			key,
			{ inputs: node.description.inputs, outputs: node.description.outputs },
		]),
	);
}

const EXPECTED = {
	action: { inputs: ['main'], outputs: ['main'] },
	trigger: { inputs: [], outputs: ['main'] },
	polling: { inputs: [], outputs: ['main'] },
};

describe('the nodes on an n8n older than 1.85', () => {
	it('load with an n8n-workflow that has no NodeConnectionTypes, with the main connection as text', () => {
		const nodes = loadNodes(() => {
			const { NodeConnectionTypes, ...older } =
				jest.requireActual<Record<string, unknown>>('n8n-workflow');
			expect(NodeConnectionTypes).toBeDefined();
			return { __esModule: true, ...older };
		});
		expect(connections(nodes)).toEqual(EXPECTED);
	});

	it('take the connection from NodeConnectionTypes where n8n has it', () => {
		const nodes = loadNodes(() => {
			const actual = jest.requireActual<Record<string, unknown>>('n8n-workflow');
			return {
				__esModule: true,
				...actual,
				NodeConnectionTypes: { ...(actual.NodeConnectionTypes as object), Main: 'main-from-n8n' },
			};
		});
		expect(connections(nodes)).toEqual({
			action: { inputs: ['main-from-n8n'], outputs: ['main-from-n8n'] },
			trigger: { inputs: [], outputs: ['main-from-n8n'] },
			polling: { inputs: [], outputs: ['main-from-n8n'] },
		});
	});
});
