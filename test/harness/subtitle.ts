import type { INode, INodeParameters } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { PackageNodeTypes } from './node-types';

/** The subtitle n8n's editor shows on the canvas for a node of this type with these parameters. */
export function subtitleOf(type: string, parameters: INodeParameters): unknown {
	const nodeTypes = new PackageNodeTypes();
	const { description } = nodeTypes.getByNameAndVersion(type, 1);
	const node: INode = {
		id: 'subtitle',
		name: description.displayName,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, description.subtitle, 'manual', {});
}
