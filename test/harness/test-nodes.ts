/* eslint-disable @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

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
