import type { IExecuteFunctions } from 'n8n-workflow';

/** Whether the node runs as an AI Agent's tool (n8n names that variant …partnerLeadsTool). */
export function runsAsAgentTool(context: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** Said to the model with every error it gets from the tool (see errorsAsItems in actions/common/itemLoop.ts). */
export const AGENT_RETRY_HINT =
	'Where the error names a value to change, correct the arguments and call the tool again.';

/**
 * No webhook subscriptions: creating one returns its signing secret, which must never reach a
 * model. (Hiding them only for `@tool` would double every action in n8n's node panel.)
 */
export const AGENT_TOOL_RESOURCES: readonly string[] = ['lead', 'leadSchema'];
