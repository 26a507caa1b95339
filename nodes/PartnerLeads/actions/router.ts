import { type IExecuteFunctions, type INodeExecutionData, NodeOperationError } from 'n8n-workflow';

import { AGENT_TOOL_RESOURCES, runsAsAgentTool } from '../helpers/agentTool';
import type { LeadField } from '../../shared/schema/leadField';
import { fetchLeadSchema } from '../../shared/schema/leadSchema';
import { runFailure } from './common/itemLoop';
import * as lead from './lead';
import * as leadSchema from './leadSchema';
import type { OperationExecute, OperationRun, PartnerLeadsResource } from './common/types';
import * as webhookSubscription from './webhookSubscription';

/** Each resource's module exports its operations by value (and its `description`, no operation). */
const operations = { lead, leadSchema, webhookSubscription } as Record<
	PartnerLeadsResource,
	Record<string, { execute?: OperationExecute } | undefined>
>;

/** The operation's handler; what the node cannot do here fails the whole run with a clear error. */
function operationFor(
	this: IExecuteFunctions,
	resource: PartnerLeadsResource,
	operation: string,
): OperationExecute {
	const handler = operations[resource]?.[operation]?.execute;
	if (runsAsAgentTool(this) && !AGENT_TOOL_RESOURCES.includes(resource)) {
		throw new NodeOperationError(this.getNode(), `"${resource}" is not available to an AI Agent`, {
			description:
				"As an agent's tool the node works on leads and the lead schema. Manage webhook subscriptions with the node in a workflow (or the Partner Referral Service Trigger).",
		});
	}
	if (!handler) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not supported for "${resource}"`,
		);
	}
	return handler;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as PartnerLeadsResource;
	const operation = this.getNodeParameter('operation', 0) as string;
	let schema: Promise<LeadField[]> | undefined;
	const run: OperationRun = {
		leadSchema: async () => await (schema ??= fetchLeadSchema.call(this)),
	};

	try {
		const execute = operationFor.call(this, resource, operation);
		return [await execute.call(this, items, run)];
	} catch (caught) {
		// Item failures are handled by the loop; what gets here stopped the whole run.
		return [runFailure.call(this, caught, items.length)];
	}
}
