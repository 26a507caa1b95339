import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether the node runs as an AI Agent's tool. n8n derives the tool variant from
 * `usableAsTool` under the node's type name with a `Tool` suffix (…partnerLeadsTool).
 */
export function runsAsAgentTool(context: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** Said to the model with every error it gets from the tool (see errorsAsItems in actions/common/itemLoop.ts). */
export const AGENT_RETRY_HINT =
	'Where the error names a value to change, correct the arguments and call the tool again.';

/**
 * What an agent may do with the tool: leads and the lead schema. Webhook subscriptions are
 * refused: creating one returns its signing secret, which must never reach a model, and
 * subscribing is set up once by a person, not per conversation. (The Resource list cannot hide
 * them for the tool alone: a second Resource parameter shown only with `@tool` doubles every
 * action in n8n's node panel.)
 */
export const AGENT_TOOL_RESOURCES: readonly string[] = ['lead', 'leadSchema'];
