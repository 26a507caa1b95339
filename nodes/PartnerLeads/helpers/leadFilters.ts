import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Get Many filters. The service's list takes no filter parameters (DESIGN.md), so they are
 * applied here, to each page as it arrives.
 */

export type LeadPredicate = (lead: IDataObject) => boolean;

const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** n8n's date picker gives a time without a zone; it is read as UTC. */
function instantOf(node: INode, value: unknown, label: string): number {
	const raw =
		typeof value === 'string' ? value.trim() : value instanceof Date ? value.toISOString() : '';
	const withZone = /^\d{4}-\d{2}-\d{2}$/.test(raw)
		? `${raw}T00:00:00Z`
		: /T/.test(raw) && !HAS_ZONE.test(raw)
			? `${raw}Z`
			: raw;
	const time = Date.parse(withZone);
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

/** A predicate for the filters that are set, or undefined when none is. */
export function leadPredicateFrom(node: INode, filters: IDataObject): LeadPredicate | undefined {
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
