import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { leadSchemaForEditor } from '../../shared/schema/leadSchema';
import { canIdentifyLead } from '../../shared/schema/fieldTypes';

/** Fields Create or Update can find an existing lead by. */
export async function getMatchFields(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const fields = await leadSchemaForEditor.call(this);
	return fields.filter(canIdentifyLead).map((field) => ({
		name: field.label,
		value: field.fieldId,
		description: `${field.custom ? 'Custom field' : 'Standard field'} ${field.fieldId} (${field.type})`,
	}));
}
