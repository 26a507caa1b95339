import type { IDataObject } from 'n8n-workflow';

/** The lead fields most workflows need (Get Many with Simplify). */
export function simplifyLead(lead: IDataObject): IDataObject {
	const name = [lead.firstName, lead.lastName]
		.filter((part) => typeof part === 'string' && part.trim() !== '')
		.join(' ');
	const simple: IDataObject = {
		id: lead.id,
		name,
		email: lead.email,
		status: lead.status,
		value: lead.value,
		partnerOrganizationId: lead.partnerOrganizationId,
		agentId: lead.agentId,
		createdAt: lead.createdAt,
		updatedAt: lead.updatedAt,
	};
	for (const key of Object.keys(simple)) if (simple[key] === undefined) delete simple[key];
	return simple;
}

export function isLead(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A lead's value for a schema field: custom fields live under `customFields`. */
export function leadFieldValue(lead: IDataObject, fieldId: string, custom: boolean): unknown {
	if (custom) {
		const customFields = lead.customFields;
		return isLead(customFields) ? customFields[fieldId] : undefined;
	}
	return lead[fieldId];
}
