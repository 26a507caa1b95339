import type { IConnections, IDataObject, INode, INodeCredentials } from 'n8n-workflow';

import { ACTION_NODE_TYPE, CREDENTIAL_TYPE } from '../../test/harness/harness';
import type { N8nHarness } from '../../test/harness/harness';
import { UPDATED_DEAL_VALUE } from './lead-list';

/**
 * The workflows the demo runs, as n8n would store them. The start node is the harness's
 * "Test Items" node, standing in for a spreadsheet or CRM node that emits rows.
 */

export const PUSH_NODES = {
	list: 'Lead List',
	create: 'Create Leads',
	readBack: 'Read Back',
	update: 'Update One',
} as const;

export const CHECK_NODES = {
	start: 'Start',
	list: 'List Subscriptions',
} as const;

export interface WorkflowDefinition {
	nodes: INode[];
	connections: IConnections;
	startNode: string;
}

function chain(...names: string[]): IConnections {
	const connections: IConnections = {};
	for (let index = 0; index + 1 < names.length; index++) {
		connections[names[index]] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

function credentialsOf(harness: N8nHarness): INodeCredentials {
	return { [CREDENTIAL_TYPE]: harness.credential };
}

function itemsNode(name: string, items: IDataObject[]): INode {
	return {
		id: `demo-${name.toLowerCase().replace(/\s+/g, '-')}`,
		name,
		type: 'test.testItems',
		typeVersion: 1,
		position: [0, 0],
		parameters: { items: JSON.stringify(items) },
	};
}

/**
 * Lead List → Create Leads (Continue On Fail, Lead Fields mapped automatically from each
 * row) → Read Back (Get Many, once) → Update One (the first lead read back, once).
 */
export function pushLeadsWorkflow(
	harness: N8nHarness,
	rows: IDataObject[],
	partnerOrganizationId: string,
): WorkflowDefinition {
	const credentials = credentialsOf(harness);
	const nodes: INode[] = [
		itemsNode(PUSH_NODES.list, rows),
		{
			id: 'demo-create',
			name: PUSH_NODES.create,
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [220, 0],
			credentials,
			// "Settings > On Error: Continue": one bad row must not stop the good ones.
			onError: 'continueRegularOutput',
			parameters: {
				resource: 'lead',
				operation: 'create',
				partnerOrganizationId: { __rl: true, mode: 'list', value: '' },
				agentId: { __rl: true, mode: 'list', value: '' },
				leadFields: {
					mappingMode: 'autoMapInputData',
					value: null,
					matchingColumns: [],
					schema: [],
				},
				options: { parallelRequests: 4 },
			},
		},
		{
			id: 'demo-read-back',
			name: PUSH_NODES.readBack,
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [440, 0],
			credentials,
			// One list for the whole batch, not one per incoming item.
			executeOnce: true,
			parameters: {
				resource: 'lead',
				operation: 'getMany',
				returnAll: true,
				filters: { partnerOrganizationId },
				simplify: true,
			},
		},
		{
			id: 'demo-update',
			name: PUSH_NODES.update,
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			position: [660, 0],
			credentials,
			executeOnce: true,
			parameters: {
				resource: 'lead',
				operation: 'update',
				leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				leadFields: {
					mappingMode: 'defineBelow',
					value: { value: UPDATED_DEAL_VALUE, notes: 'Deal value confirmed by the partner' },
					matchingColumns: [],
					schema: [],
				},
			},
		},
	];
	return {
		nodes,
		connections: chain(PUSH_NODES.list, PUSH_NODES.create, PUSH_NODES.readBack, PUSH_NODES.update),
		startNode: PUSH_NODES.list,
	};
}

/** Start → Webhook Subscription: Get Many, to ask the service what this key is subscribed to. */
export function listSubscriptionsWorkflow(harness: N8nHarness): WorkflowDefinition {
	return {
		nodes: [
			itemsNode(CHECK_NODES.start, [{}]),
			{
				id: 'demo-list-subscriptions',
				name: CHECK_NODES.list,
				type: ACTION_NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				credentials: credentialsOf(harness),
				parameters: { resource: 'webhookSubscription', operation: 'getMany' },
			},
		],
		connections: chain(CHECK_NODES.start, CHECK_NODES.list),
		startNode: CHECK_NODES.start,
	};
}
