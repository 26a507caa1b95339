import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { LeadField } from '../../helpers/leadSchema';
import { errorItem, withItemIndex } from '../../helpers/itemRunner';
import type { LeadSchemaResponse } from '../../helpers/schemaSource';
import { fetchLeadSchemaResponse } from '../../helpers/schemaSource';

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

export const description = updateDisplayOptions(
	{ show: { resource: ['leadSchema'], operation: ['get'] } },
	properties,
);

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
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	let schema: LeadSchemaResponse;
	try {
		schema = await fetchLeadSchemaResponse.call(this);
	} catch (caught) {
		const error = withItemIndex(this, caught, 0);
		if (!this.continueOnFail()) throw error;
		return items.map((_item, itemIndex) => errorItem(error, itemIndex));
	}
	const { fields } = schema;
	// A bare list is shown as the service's documented shape.
	const raw = (
		Array.isArray(schema.payload) ? { unifiedFields: schema.payload } : schema.payload
	) as IDataObject;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const mode = this.getNodeParameter('output', itemIndex, 'fields') as string;
		if (mode === 'raw') {
			output.push({ json: structuredClone(raw) as IDataObject, pairedItem: { item: itemIndex } });
		} else {
			for (const field of fields)
				output.push({ json: fieldItem(field), pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
