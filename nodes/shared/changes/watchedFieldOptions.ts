import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import type { LeadField } from '../schema/leadField';
import { leadSchemaForEditor } from '../schema/leadSchema';
import { statusesOnLeads } from './statusesOnLeads';

/** Set by the service, not described by the schema, and what most lead workflows turn on. */
const STATUS_FIELD: LeadField = {
	fieldId: 'status',
	label: 'Status',
	type: 'string',
	serviceType: 'string',
	required: false,
	creatable: false,
	updateable: false,
	custom: false,
};

/** The lead's own bookkeeping: they change with every change, or never. */
const NOT_WATCHABLE = new Set(['id', 'companyId', 'createdAt', 'updatedAt', 'customFields']);

async function watchableFields(context: ILoadOptionsFunctions): Promise<LeadField[]> {
	const fields = (await leadSchemaForEditor.call(context)).filter(
		(field) => !NOT_WATCHABLE.has(field.fieldId),
	);
	if (!fields.some((field) => field.fieldId === STATUS_FIELD.fieldId)) fields.push(STATUS_FIELD);
	return fields;
}

function describe(field: LeadField): string {
	if (field === STATUS_FIELD) return 'Standard field status, set by the service';
	return `${field.custom ? 'Custom field' : 'Standard field'} ${field.fieldId} (${field.type})`;
}

function byName(a: INodePropertyOptions, b: INodePropertyOptions): number {
	return a.name.localeCompare(b.name);
}

/** Fields to Watch: every field of the schema, and the lead's status. */
export async function getWatchableFields(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const fields = await watchableFields(this);
	return fields
		.map((field) => ({ name: field.label, value: field.fieldId, description: describe(field) }))
		.sort(byName);
}

function chosenFieldIds(context: ILoadOptionsFunctions): string[] {
	const chosen = context.getCurrentNodeParameter('watchedFields');
	return Array.isArray(chosen) ? chosen.filter((id): id is string => typeof id === 'string') : [];
}

/** A condition's Field: one of the fields chosen to watch. */
export async function getWatchedFieldChoices(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const chosen = chosenFieldIds(this);
	if (chosen.length === 0) return [];
	const fields = await watchableFields(this);
	return chosen
		.map((fieldId) => {
			const field = fields.find((candidate) => candidate.fieldId === fieldId);
			return { name: field?.label ?? fieldId, value: fieldId };
		})
		.sort(byName);
}

/** A condition's Values: the schema's picklist, true/false for yes/no, or Status seen on leads. */
export async function getWatchedFieldValues(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const fieldId = this.getCurrentNodeParameter('&field');
	if (typeof fieldId !== 'string' || fieldId === '') return [];
	const field = (await watchableFields(this)).find((candidate) => candidate.fieldId === fieldId);
	if (field?.type === 'boolean')
		return [
			{ name: 'False', value: 'false' },
			{ name: 'True', value: 'true' },
		];
	const options = field?.options ?? [];
	if (fieldId === STATUS_FIELD.fieldId && options.length === 0)
		return await statusesOnLeads.call(this);
	return options.map((option) => ({ name: option.label, value: option.value }));
}

/** The editor methods both triggers register (`methods.loadOptions`). */
export const WATCHED_FIELD_LOAD_OPTIONS = {
	getWatchableFields,
	getWatchedFieldChoices,
	getWatchedFieldValues,
};
