import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { parallelRequestsOption, runItems } from '../../helpers/itemRunner';
import {
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
} from '../../helpers/leadInput';
import { leadIdParameter, patchLead } from '../../helpers/leadRequests';
import { prepareItems, preparedValue } from '../../helpers/prepareItems';
import { leadFieldsMapper, leadIdLocator, requestOptions } from '../common.descriptions';
import type { OperationRun } from '../types';

const properties: INodeProperties[] = [leadIdLocator, leadFieldsMapper('update'), requestOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['lead'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: OperationRun,
): Promise<INodeExecutionData[]> {
	const schema = withCreditFields(await run.leadSchema());
	const requests = prepareItems(
		this,
		items.length,
		(itemIndex): { leadId: string; body: IDataObject } => {
			const leadId = leadIdParameter(this, itemIndex);
			const values = readValidLeadValues.call(this, itemIndex, items[itemIndex], schema, 'update');
			if (Object.keys(values).length === 0) {
				throw new NodeOperationError(
					this.getNode(),
					'Nothing to update: no lead field has a value',
					{
						itemIndex,
						description:
							"Add the fields to change in 'Lead Fields' and give them values. Empty values are not sent.",
					},
				);
			}
			return { leadId, body: splitStandardAndCustomFields(values, schema) };
		},
	);

	return await runItems.call(
		this,
		items.length,
		parallelRequestsOption(this),
		async (itemIndex, pacing) => {
			const { leadId, body } = preparedValue(requests[itemIndex]);
			const lead = await patchLead.call(this, leadId, body, itemIndex, pacing);
			return [{ json: lead, pairedItem: { item: itemIndex } }];
		},
	);
}
