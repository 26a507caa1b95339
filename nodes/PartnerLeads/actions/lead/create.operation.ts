import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { parallelRequestsOption, runItems } from '../../helpers/itemRunner';
import {
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
} from '../../helpers/leadInput';
import { createLead } from '../../helpers/leadRequests';
import { prepareItems, preparedValue } from '../../helpers/prepareItems';
import { creditFields, leadFieldsMapper, requestOptions } from '../common.descriptions';
import type { OperationRun } from '../types';

const properties: INodeProperties[] = [...creditFields, leadFieldsMapper('create'), requestOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['lead'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: OperationRun,
): Promise<INodeExecutionData[]> {
	const schema = withCreditFields(await run.leadSchema());
	const bodies = prepareItems(this, items.length, (itemIndex): IDataObject => {
		const values = readValidLeadValues.call(this, itemIndex, items[itemIndex], schema, 'create');
		return splitStandardAndCustomFields(values, schema);
	});

	return await runItems.call(
		this,
		items.length,
		parallelRequestsOption(this),
		async (itemIndex, pacing) => {
			const body = preparedValue(bodies[itemIndex]);
			const lead = await createLead.call(this, body, itemIndex, pacing);
			return [{ json: lead, pairedItem: { item: itemIndex } }];
		},
	);
}
