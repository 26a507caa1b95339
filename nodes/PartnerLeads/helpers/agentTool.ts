import type { IExecuteFunctions, INode } from 'n8n-workflow';

/**
 * Whether the node runs as an AI Agent's tool. n8n derives the tool variant from
 * `usableAsTool` under the node's type name with a `Tool` suffix (…partnerLeadsTool).
 */
export function runsAsAgentTool(context: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return isAgentToolNode(context.getNode());
}

export function isAgentToolNode(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/**
 * Said to the model with every error it gets from the tool. An agent reads the tool's result,
 * not n8n's error panel: a thrown error reaches it as an empty result, so it could not
 * correct its call.
 */
export const AGENT_RETRY_HINT =
	'Correct the arguments as the error says and call the tool again; do not repeat the same call.';

/**
 * What an agent may do with the tool: leads and the lead schema. Webhook subscriptions are
 * left out: creating one returns its signing secret, which must never reach a model, and
 * subscribing is set up once by a person, not per conversation.
 */
export const AGENT_TOOL_RESOURCES: readonly string[] = ['lead', 'leadSchema'];
