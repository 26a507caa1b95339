import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { LeadWritePurpose } from '../../helpers/schema';
import { AUTOMATIC_PARALLEL_REQUESTS, MAX_PARALLEL_REQUESTS } from './itemLoop';

/** An operation's properties, shown only for it. */
export function shownFor(resource: string, operation: string, properties: INodeProperties[]) {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: [operation] } },
		properties,
	);
}

/** A record picked from a searchable list, or given by its ID. */
export function locator(
	displayName: string,
	name: string,
	searchListMethod: string,
	listPlaceholder: string,
	idPlaceholder: string,
	rest: Partial<INodeProperties>,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		...rest,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: listPlaceholder,
				typeOptions: { searchListMethod, searchable: true, searchFilterRequired: false },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: idPlaceholder },
		],
	};
}

/** A locator's ID, checked so an empty one fails with a clear message. */
export function locatorValue(
	context: IExecuteFunctions,
	name: string,
	itemIndex: number,
	message: string,
	description: string,
): string {
	const raw = context.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
	const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	if (!id) throw new NodeOperationError(context.getNode(), message, { itemIndex, description });
	return id;
}

const ID_PLACEHOLDER = 'e.g. 65f0c2a1d3e4f5a6b7c8d9e0';

export const leadIdLocator = locator(
	'Lead',
	'leadId',
	'searchLeads',
	'Select a lead...',
	ID_PLACEHOLDER,
	{
		required: true,
		description: 'The lead to use',
	},
);

/** The lead ID of the Lead locator. */
export function leadIdParameter(context: IExecuteFunctions, itemIndex: number): string {
	return locatorValue(
		context,
		'leadId',
		itemIndex,
		"No lead chosen in 'Lead'",
		'Pick a lead from the list, or enter its ID (an expression such as {{ $json.id }} works too).',
	);
}

const SELF_SERVE_HINT =
	'Required with a self-serve key (the kind Portal Setup > Other > Developer / API Keys creates)';

/** A self-serve key must credit each new lead to a partner organization and one of its agents. */
export const creditFields: INodeProperties[] = [
	locator(
		'Partner Organization',
		'partnerOrganizationId',
		'searchPartnerOrganizations',
		'Select a partner organization...',
		ID_PLACEHOLDER,
		{
			description:
				'The partner organization credited with the lead. The list shows the ones credited on existing leads; enter a new one by ID.',
			hint: `${SELF_SERVE_HINT}. Leave empty to take it from the input item when 'Lead Fields' maps automatically.`,
		},
	),
	locator('Agent', 'agentId', 'searchAgents', 'Select an agent...', ID_PLACEHOLDER, {
		description:
			"The partner user credited with the lead. The list shows the agents credited on existing leads of the chosen 'Partner Organization'; enter a new one by ID.",
		hint: `${SELF_SERVE_HINT}. The agent must belong to the partner organization.`,
	}),
];

const MAPPER_METHODS: Record<LeadWritePurpose, string> = {
	create: 'getLeadFields',
	update: 'getLeadFieldsForUpdate',
	upsert: 'getLeadFieldsForUpsert',
};

const MAPPER_HINTS: Record<LeadWritePurpose, string> = {
	create:
		"Fields, labels, required fields and picklist values come from the portal's lead schema, the portal's own fields and its custom ones alike. Empty values are not sent.",
	update:
		"Add only the fields to change; empty values are not sent. Fields come from the portal's lead schema (those it marks updateable).",
	upsert:
		'Fields the schema allows only on create (or only on update) are sent only when the lead is created (or updated). Empty values are not sent.',
};

/** Fields from the live schema. Always "add" mode: n8n's update/upsert modes add a match picker. */
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

/** Values stay numbers (0 = automatic, 1-32 = at most that many) so saved workflows keep them. */
const PARALLEL_REQUEST_CHOICES: INodePropertyOptions[] = [
	{
		name: 'Automatic',
		value: AUTOMATIC_PARALLEL_REQUESTS,
		description:
			'Recommended. Starts with 8 items at once, sends more while the service keeps up (up to 32) and fewer as soon as it asks to slow down.',
	},
	{
		name: 'One at a Time',
		value: 1,
		description: 'Each item is sent once the one before it has been answered',
	},
	...Array.from({ length: MAX_PARALLEL_REQUESTS - 1 }, (_, index) => ({
		name: `${index + 2} at Once`,
		value: index + 2,
	})),
];

export const parallelRequestsOption: INodeProperties = {
	displayName: 'Parallel Requests',
	name: 'parallelRequests',
	type: 'options',
	options: PARALLEL_REQUEST_CHOICES,
	default: AUTOMATIC_PARALLEL_REQUESTS,
	description:
		'How many items the node sends to the service at once. The output keeps the input order whatever you choose.',
	hint: 'Leave it on Automatic unless the portal must receive each item before the next (One at a Time) or you must cap the load on the service (a number)',
};

export const requestOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
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

/** Simplify on the operations that output leads. */
export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return a simplified version of the response instead of the raw data: ID, name, email, status, value, partner organization, agent and timestamps',
};
