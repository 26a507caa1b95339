/* eslint-disable @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { apiRequest } from '../../nodes/shared/transport/request';

/** Emits the JSON items given in its `items` parameter: the start of every test workflow. */
export class TestItemsNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Items',
		name: 'testItems',
		group: ['input'],
		version: 1,
		description: 'Emits fixed items',
		defaults: { name: 'Test Items' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as unknown;
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

/**
 * Sends one transport request per input item (`method` and `path` from the item), so the
 * credential and transport are exercised inside n8n's engine before any real node uses them.
 */
export class TransportProbeNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Probe',
		name: 'transportProbe',
		group: ['transform'],
		version: 1,
		description: 'Calls the Partner Referral Service through the transport',
		defaults: { name: 'Transport Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'partnerLeadsApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const { method, path, body, api, what } = items[itemIndex].json as IDataObject;
			try {
				const data = await apiRequest.call(this, {
					method: (method as 'GET') ?? 'GET',
					path: path as string,
					body: body as IDataObject | undefined,
					api: (api as 'rest' | 'webhooks') ?? 'rest',
					what: (what as string) ?? 'request',
					itemIndex,
				});
				output.push({ json: { data } as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				if (!this.continueOnFail()) throw error;
				output.push({
					json: {
						error: (error as Error).message,
						description: (error as { description?: string }).description ?? null,
					},
					pairedItem: { item: itemIndex },
				});
			}
		}
		return [output];
	}
}

/**
 * "Your system" behind a trigger, refusing some leads as a CRM might: it handles every item
 * (as n8n's HTTP Request node sends every item's request), then fails the execution if any
 * item's lead has one of the first names `refuseFirstNames` (known before the lead's ID is).
 */
export class RefuseLeadsNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Refuse Leads',
		name: 'refuseLeads',
		group: ['transform'],
		version: 1,
		description: 'Fails the execution for some leads',
		defaults: { name: 'Your System' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'First Names', name: 'refuseFirstNames', type: 'json', default: '[]' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const refused = this.getNodeParameter('refuseFirstNames', 0) as unknown as string[];
		const items = this.getInputData();
		const names = items.map((item) => String((item.json.lead as IDataObject)?.firstName));
		const refusedHere = names.filter((name) => refused.includes(name));
		if (refusedHere.length > 0)
			throw new NodeOperationError(this.getNode(), `Refused ${refusedHere.join(', ')}`);
		return [items];
	}
}
