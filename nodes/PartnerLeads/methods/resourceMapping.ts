import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { type LeadWritePurpose, leadFieldsFromSchema } from '../helpers/schema';
import { fetchLeadSchema } from '../../shared/schema/leadSchema';

const EMPTY_NOTICE: Record<LeadWritePurpose, string> = {
	create: "The portal's lead schema has no field that can be set on create",
	update: "The portal's lead schema has no field that can be changed",
	upsert: "The portal's lead schema has no field that can be set",
};

/** Always fetched anew, so Refresh Field List shows schema changes (and updates the cache). */
function fieldsFor(purpose: LeadWritePurpose) {
	return async function (this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
		const fields = leadFieldsFromSchema(await fetchLeadSchema.call(this), purpose);
		return fields.length > 0 ? { fields } : { fields, emptyFieldsNotice: EMPTY_NOTICE[purpose] };
	};
}

/** Lead > Create: creatable fields, required as the schema says. */
export const getLeadFields = fieldsFor('create');

/** Lead > Update: updateable fields, none required. */
export const getLeadFieldsForUpdate = fieldsFor('update');

/** Lead > Create or Update: fields that can be set either way; required as on create. */
export const getLeadFieldsForUpsert = fieldsFor('upsert');
