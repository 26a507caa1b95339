import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import type { LeadWritePurpose } from '../helpers/schema';
import { fetchLeadSchema } from '../../shared/schema/leadSchema';
import { leadFieldsFromSchema } from '../helpers/schema';

const EMPTY_NOTICE: Record<LeadWritePurpose, string> = {
	create: "The portal's lead schema has no field that can be set on create",
	update: "The portal's lead schema has no field that can be changed",
	upsert: "The portal's lead schema has no field that can be set",
};

/** Always fetched anew, so Refresh Field List shows schema changes (and updates the cache). */
async function fieldsFor(
	context: ILoadOptionsFunctions,
	purpose: LeadWritePurpose,
): Promise<ResourceMapperFields> {
	const fields = leadFieldsFromSchema(await fetchLeadSchema.call(context), purpose);
	return fields.length > 0 ? { fields } : { fields, emptyFieldsNotice: EMPTY_NOTICE[purpose] };
}

/** Lead > Create: creatable fields, required as the schema says. */
export async function getLeadFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return await fieldsFor(this, 'create');
}

/** Lead > Update: updateable fields, none required. */
export async function getLeadFieldsForUpdate(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	return await fieldsFor(this, 'update');
}

/** Lead > Create or Update: fields that can be set either way; required as on create. */
export async function getLeadFieldsForUpsert(
	this: ILoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	return await fieldsFor(this, 'upsert');
}
