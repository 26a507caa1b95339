import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { LeadField } from '../../../shared/schema/leadField';
import { fetchLeadSchemaResponse } from '../../../shared/schema/leadSchema';
import { defineOperation } from '../common/defineOperation';
import { shownFor } from '../common/descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'fields',
		options: [
			{
				name: 'One Item per Field',
				value: 'fields',
				description:
					'Each field with its ID, label and type, whether it is required, can be set on create or on update, and is custom, and its picklist values',
			},
			{
				name: 'Raw Response',
				value: 'raw',
				description: 'One item with the schema exactly as the service sent it',
			},
		],
	},
];

export const description = shownFor('leadSchema', 'get', properties);

function fieldItem(field: LeadField): IDataObject {
	const json: IDataObject = {
		fieldId: field.fieldId,
		label: field.label,
		type: field.serviceType,
		required: field.required,
		creatable: field.creatable,
		updateable: field.updateable,
		isCustom: field.custom,
	};
	if (field.options) json.options = field.options.map((option) => ({ ...option }));
	return json;
}

/** The schema is the same for every item: it is fetched once and given to each. */
export const execute = defineOperation(async function () {
	const { fields, payload } = await fetchLeadSchemaResponse.call(this);
	const raw = (Array.isArray(payload) ? { unifiedFields: payload } : payload) as IDataObject;
	return {
		prepare: (itemIndex) => this.getNodeParameter('output', itemIndex, 'fields') as string,
		run: async (_itemIndex, mode: string) =>
			mode === 'raw' ? (structuredClone(raw) as IDataObject) : fields.map(fieldItem),
	};
});
