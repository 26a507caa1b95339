import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { parallelRequestsOption, runItems } from '../../helpers/itemRunner';
import { getLead, leadIdParameter } from '../../helpers/leadRequests';
import { leadIdLocator, requestOptions } from '../common.descriptions';

const properties: INodeProperties[] = [leadIdLocator, requestOptions];

export const description = updateDisplayOptions({ show: { resource: ['lead'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, parallelRequestsOption(this), async (itemIndex, pacing) => {
		const lead = await getLead.call(this, leadIdParameter(this, itemIndex), itemIndex, pacing);
		return [{ json: lead, pairedItem: { item: itemIndex } }];
	});
}
