import type { ICredentialType, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { RefuseLeadsNode, TestItemsNode, TransportProbeNode } from './test-nodes';

export const PACKAGE = 'n8n-nodes-partner-leads';

type NodeTypeFactory = () => INodeType | IVersionedNodeType;

/**
 * The action node as an AI Agent's tool, the way n8n derives it from `usableAsTool`
 * (convertNodeToAiTool in n8n's cli): the same node under the type name with a `Tool` suffix,
 * which its `@tool` display options see, plus the Tool Description parameters n8n adds.
 */
function asAgentTool(node: PartnerLeads): INodeType {
	const tool = new PartnerLeads();
	tool.description = {
		...node.description,
		name: `${node.description.name}Tool`,
		displayName: `${node.description.displayName} Tool`,
		properties: [
			{
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Set Automatically', value: 'auto' },
					{ name: 'Set Manually', value: 'manual' },
				],
				default: 'auto',
			},
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: node.description.description,
				required: true,
				displayOptions: { show: { descriptionType: ['manual'] } },
			},
			...node.description.properties,
		],
	};
	return tool;
}

/** The node types n8n would load from this package, plus the test-only nodes, by full type name. */
const factories: Record<string, NodeTypeFactory> = {
	'test.testItems': () => new TestItemsNode(),
	'test.transportProbe': () => new TransportProbeNode(),
	'test.refuseLeads': () => new RefuseLeadsNode(),
	[`${PACKAGE}.partnerLeads`]: () => new PartnerLeads(),
	[`${PACKAGE}.partnerLeadsTool`]: () => asAgentTool(new PartnerLeads()),
	[`${PACKAGE}.partnerLeadsTrigger`]: () => new PartnerLeadsTrigger(),
	[`${PACKAGE}.partnerLeadsPollingTrigger`]: () => new PartnerLeadsPollingTrigger(),
};

export class PackageNodeTypes implements INodeTypes {
	private readonly cache = new Map<string, INodeType | IVersionedNodeType>();

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		let type = this.cache.get(nodeType);
		if (!type) {
			const factory = factories[nodeType];
			if (!factory) throw new Error(`Unknown node type ${nodeType}`);
			type = factory();
			this.cache.set(nodeType, type);
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes() {
		return {};
	}
}

export function packageCredentialTypes(): Map<string, ICredentialType> {
	const credential = new PartnerLeadsApi();
	return new Map([[credential.name, credential]]);
}
