import type { IConnections, INode, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { parameterProblems } from '../examples/parameter-check';
import { PACKAGE, PackageNodeTypes } from '../harness/node-types';
import { STANDARD_LEAD_FIELD_IDS } from '../simulator';

/**
 * Whether a linked workflow file imports into n8n: a workflow n8n can build, whose node types
 * are this package's (with a version it has, and parameters it shows) or n8n's own.
 */

/** The packages n8n ships its nodes in. */
const N8N_NODE_PACKAGES = ['n8n-nodes-base.', '@n8n/n8n-nodes-langchain.'];

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Problems of one workflow file (empty: it imports). */
export function exampleProblems(json: string): string[] {
	let workflow: unknown;
	try {
		workflow = JSON.parse(json);
	} catch (error) {
		return [`is not JSON: ${(error as Error).message}`];
	}
	if (!isObject(workflow) || !Array.isArray(workflow.nodes) || !isObject(workflow.connections))
		return ['is not an n8n workflow: it needs "nodes" (a list) and "connections" (an object)'];

	const packageTypes = new PackageNodeTypes();
	/** This package's node types as n8n loads them (the agent tool variant included), by type name. */
	const ourType = (type: string): INodeType | IVersionedNodeType | undefined => {
		if (!type.startsWith(`${PACKAGE}.`)) return undefined;
		try {
			return packageTypes.getByName(type);
		} catch {
			return undefined;
		}
	};
	const nodes = workflow.nodes as INode[];
	const connections = workflow.connections as IConnections;
	const problems: string[] = [];
	const names = new Set(nodes.map((node) => node.name));

	for (const node of nodes) {
		if (
			typeof node.name !== 'string' ||
			typeof node.type !== 'string' ||
			typeof node.typeVersion !== 'number'
		)
			problems.push(`node ${JSON.stringify(node.name)}: needs a name, a type and a typeVersion`);
		const type = ourType(String(node.type));
		if (type) {
			const versions = [NodeHelpers.getVersionedNodeType(type).description.version].flat();
			if (!versions.includes(node.typeVersion))
				problems.push(
					`node "${node.name}": ${node.type} has no version ${node.typeVersion} (it has ${versions.join(', ')})`,
				);
			else
				for (const problem of parameterProblems(
					NodeHelpers.getVersionedNodeType(type, node.typeVersion).description,
					node,
					STANDARD_LEAD_FIELD_IDS,
				))
					problems.push(`node "${node.name}": ${problem}`);
		} else if (String(node.type).startsWith(`${PACKAGE}.`)) {
			problems.push(`node "${node.name}": ${node.type} is no node type of this package`);
		} else if (!N8N_NODE_PACKAGES.some((prefix) => String(node.type).startsWith(prefix))) {
			problems.push(
				`node "${node.name}": type ${node.type} is neither this package's (${PACKAGE}.*) nor one of n8n's (${N8N_NODE_PACKAGES.join('*, ')}*)`,
			);
		}
	}
	for (const [source, byType] of Object.entries(connections)) {
		if (!names.has(source)) problems.push(`connections: from "${source}", which is no node`);
		for (const target of Object.values(byType).flat(2))
			if (target && !names.has(target.node))
				problems.push(`connections: "${source}" to "${target.node}", which is no node`);
	}
	if (problems.length) return problems;

	const nodeTypes: INodeTypes = {
		getByName: (type) => ourType(type) as INodeType,
		getByNameAndVersion: (type, version) => {
			const ours = ourType(type);
			return (ours ? NodeHelpers.getVersionedNodeType(ours, version) : undefined) as INodeType;
		},
		getKnownTypes: () => ({}),
	};
	try {
		new Workflow({ nodes: structuredClone(nodes), connections, active: false, nodeTypes });
	} catch (error) {
		problems.push(`n8n cannot load it: ${(error as Error).message}`);
	}
	return problems;
}
