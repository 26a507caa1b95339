import { type IDataObject, type INodeProperties, NodeOperationError } from 'n8n-workflow';

import { patchLead } from '../../../shared/leads';
import {
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
} from '../../helpers/leadValues';
import {
	leadFieldsMapper,
	leadIdLocator,
	leadIdParameter,
	requestOptions,
	shownFor,
} from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';

const properties: INodeProperties[] = [leadIdLocator, leadFieldsMapper('update'), requestOptions];

export const description = shownFor('lead', 'update', properties);

interface LeadUpdate {
	leadId: string;
	body: IDataObject;
}

export const execute = defineOperation(async function (items, run) {
	const schema = withCreditFields(await run.leadSchema());
	return {
		parallel: true,
		prepare: (itemIndex): LeadUpdate => {
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
		run: async (_itemIndex, { leadId, body }: LeadUpdate, request) =>
			await patchLead.call(this, leadId, body, request),
	};
});
