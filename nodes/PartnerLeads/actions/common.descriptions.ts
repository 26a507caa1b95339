import type { INodeProperties } from 'n8n-workflow';

import { MAX_PARALLEL_REQUESTS } from '../helpers/itemRunner';
import type { LeadWritePurpose } from '../helpers/mapperFields';

export const leadIdLocator: INodeProperties = {
	displayName: 'Lead',
	name: 'leadId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The lead to use',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a lead...',
			typeOptions: {
				searchListMethod: 'searchLeads',
				searchable: true,
				searchFilterRequired: false,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: '65f0c2a1d3e4f5a6b7c8d9e0',
		},
	],
};

const SELF_SERVE_HINT =
	'Required with a self-serve key (the kind Portal Setup > Other > Developer / API Keys creates)';

/** Spec 5.8: a self-serve key must credit a partner organization and one of its agents. */
export const creditFields: INodeProperties[] = [
	{
		displayName: 'Partner Organization ID',
		name: 'partnerOrganizationId',
		type: 'string',
		default: '',
		placeholder: '65f0c2a1d3e4f5a6b7c8d9e0',
		description: 'The partner organization credited with the lead',
		hint: `${SELF_SERVE_HINT}. Leave empty to take it from the input item when Lead Fields maps automatically.`,
	},
	{
		displayName: 'Agent ID',
		name: 'agentId',
		type: 'string',
		default: '',
		placeholder: '65f0c2a1d3e4f5a6b7c8d9e1',
		description: 'The partner user credited with the lead; must belong to the partner organization',
		hint: `${SELF_SERVE_HINT}. The agent must belong to the partner organization.`,
	},
];

const MAPPER_METHODS: Record<LeadWritePurpose, string> = {
	create: 'getLeadFields',
	update: 'getLeadFieldsForUpdate',
	upsert: 'getLeadFieldsForUpsert',
};

const MAPPER_HINTS: Record<LeadWritePurpose, string> = {
	create:
		"Fields, labels, required fields and picklist values come from the portal's lead schema. Custom fields are sent under customFields. Empty values are not sent.",
	update:
		'Add only the fields to change; empty values are not sent. Fields come from the portal\'s lead schema (those it marks updateable).',
	upsert:
		'Fields the schema allows only on create (or only on update) are sent only when the lead is created (or updated). Empty values are not sent.',
};

/**
 * The lead's fields, loaded live from the portal's schema. Update and upsert use the "add"
 * mode too: n8n's "update"/"upsert" modes bring their own match-column picker, while here the
 * lead is picked by ID (update) or by the Match Field parameter (upsert).
 */
export function leadFieldsMapper(purpose: LeadWritePurpose): INodeProperties {
	return {
		displayName: 'Lead Fields',
		name: 'leadFields',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		hint: MAPPER_HINTS[purpose],
		typeOptions: {
			resourceMapper: {
				resourceMapperMethod: MAPPER_METHODS[purpose],
				mode: 'add',
				fieldWords: { singular: 'field', plural: 'fields' },
				// On update every field starts hidden, so nothing is changed by accident.
				addAllFields: purpose !== 'update',
				multiKeyMatch: false,
				supportAutoMap: true,
				noFieldsError: "The portal's lead schema has no fields that can be set here",
			},
		},
	};
}

export const parallelRequestsOption: INodeProperties = {
	displayName: 'Parallel Requests',
	name: 'parallelRequests',
	type: 'number',
	default: 1,
	typeOptions: { minValue: 1, maxValue: MAX_PARALLEL_REQUESTS },
	description:
		'How many items to send at once. The output keeps the input order. When the service answers 429 Too Many Requests, the node lowers this by itself and raises it again later.',
};

export const requestOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [parallelRequestsOption],
};

/** Return All, or a Limit: for every list that can grow. */
export const returnAllOrLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
];
