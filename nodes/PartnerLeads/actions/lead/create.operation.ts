import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { createLead } from '../../../shared/leads';
import {
	readValidLeadValues,
	splitStandardAndCustomFields,
	withCreditFields,
} from '../../helpers/leadValues';
import { creditFields, leadFieldsMapper, requestOptions, shownFor } from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';

const properties: INodeProperties[] = [...creditFields, leadFieldsMapper('create'), requestOptions];

export const description = shownFor('lead', 'create', properties);

export const execute = defineOperation(async function (items, run) {
	const schema = withCreditFields(await run.leadSchema());
	return {
		parallel: true,
		prepare: (itemIndex): IDataObject => {
			const values = readValidLeadValues.call(this, itemIndex, items[itemIndex], schema, 'create');
			return splitStandardAndCustomFields(values, schema);
		},
		run: async (_itemIndex, body: IDataObject, request) =>
			await createLead.call(this, body, request),
	};
});
