import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isRecord } from '../../../shared/transport/record';
import { pagesOf } from '../../../shared/transport/paging';
import { utcInstant } from '../../../shared/schema/fieldTypes';
import { simplifyLead } from '../../helpers/leadValues';
import { returnAllOrLimit, shownFor, simplifyOption } from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';

const properties: INodeProperties[] = [
	...returnAllOrLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		hint: 'The service cannot filter its list, so the node reads the leads page by page and keeps the matching ones',
		options: [
			{
				displayName: 'Agent ID',
				name: 'agentId',
				type: 'string',
				default: '',
				description: 'Only leads credited to this agent',
			},
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description: 'Only leads created after this time (a time without a zone is read as UTC)',
			},
			{
				displayName: 'Partner Organization ID',
				name: 'partnerOrganizationId',
				type: 'string',
				default: '',
				description: 'Only leads credited to this partner organization',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'string',
				default: '',
				placeholder: 'e.g. active',
				description: 'Only leads with this status (any letter case)',
			},
			{
				displayName: 'Updated After',
				name: 'updatedAfter',
				type: 'dateTime',
				default: '',
				description: 'Only leads changed after this time (a time without a zone is read as UTC)',
			},
		],
	},
	simplifyOption,
];

export const description = shownFor('lead', 'getMany', properties);

type LeadPredicate = (lead: IDataObject) => boolean;

/** n8n's date picker gives a time without a zone; it is read as UTC. */
function instantOf(node: INode, value: unknown, label: string): number {
	const raw =
		typeof value === 'string' ? value.trim() : value instanceof Date ? value.toISOString() : '';
	const time = utcInstant(raw);
	if (Number.isNaN(time)) {
		throw new NodeOperationError(node, `'${label}' is not a date: ${JSON.stringify(value)}`, {
			description:
				'Enter an ISO 8601 date or date-time, e.g. 2024-05-01 or 2024-05-01T09:30:00Z (a time without a zone is read as UTC).',
		});
	}
	return time;
}

function textOf(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function leadPredicateFrom(node: INode, filters: IDataObject): LeadPredicate | undefined {
	const checks: LeadPredicate[] = [];
	for (const [key, field, label] of [
		['createdAfter', 'createdAt', 'Created After'],
		['updatedAfter', 'updatedAt', 'Updated After'],
	] as const) {
		if (textOf(filters[key]) === undefined && !(filters[key] instanceof Date)) continue;
		const after = instantOf(node, filters[key], label);
		checks.push((lead) => {
			const time = typeof lead[field] === 'string' ? Date.parse(lead[field]) : NaN;
			return !Number.isNaN(time) && time > after;
		});
	}
	const status = textOf(filters.status)?.toLowerCase();
	if (status !== undefined)
		checks.push((lead) => String(lead.status ?? '').toLowerCase() === status);
	for (const key of ['partnerOrganizationId', 'agentId'] as const) {
		const wanted = textOf(filters[key]);
		if (wanted !== undefined) checks.push((lead) => lead[key] === wanted);
	}
	if (checks.length === 0) return undefined;
	return (lead) => checks.every((check) => check(lead));
}

interface LeadListRequest {
	limit: number;
	matches?: LeadPredicate;
	simplify: boolean;
}

function listRequestOf(this: IExecuteFunctions, itemIndex: number): LeadListRequest {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? Infinity
		: Math.max(1, Math.floor(this.getNodeParameter('limit', itemIndex, 50) as number));
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return {
		limit,
		matches: leadPredicateFrom(this.getNode(), filters),
		simplify: this.getNodeParameter('simplify', itemIndex, true) as boolean,
	};
}

/** Page by page, so Return All holds one page at a time; without filters Limit caps requests. */
export const execute = defineOperation(async function () {
	return {
		prepare: (itemIndex) => listRequestOf.call(this, itemIndex),
		run: async (itemIndex, { limit, matches, simplify }: LeadListRequest) => {
			const leads: IDataObject[] = [];
			const pages = pagesOf.call(this, {
				path: '/leads',
				what: 'list of leads',
				itemIndex,
				limit: matches || limit === Infinity ? undefined : limit,
			});
			for await (const page of pages) {
				for (const lead of page) {
					if (!isRecord(lead) || (matches && !matches(lead))) continue;
					leads.push(simplify ? simplifyLead(lead) : lead);
					if (leads.length >= limit) return leads;
				}
			}
			return leads;
		},
	};
});
