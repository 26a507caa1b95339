import type { SimContext } from './context';
import { serviceNowMs } from './context';
import { newServiceId, serviceTimestamp, timestampResolutionMs } from './service-values';
import { READ_ONLY_LEAD_FIELDS, STANDARD_LEAD_FIELD_IDS } from './schema';
import type { LeadWrite } from './validation';
import type { Lead } from './types';

/**
 * Lead changes shared by the API handlers and the portal (control API).
 * API and portal creates/updates emit webhook events; seeding does not.
 */

function newLeadId(ctx: SimContext): string {
	return newServiceId(ctx.ids, ctx.personality, (id) => ctx.state.leads.has(id));
}

function copyValue(value: unknown): unknown {
	return Array.isArray(value) ? [...value] : value;
}

/** Field order of a stored lead: id, companyId, standard fields, status, timestamps, customFields. */
function assemble(
	ctx: SimContext,
	fields: Record<string, unknown>,
	customFields: Record<string, unknown>,
	base: { id?: string; status?: string; createdAt?: string; updatedAt?: string },
): Lead {
	const now = serviceTimestamp(ctx.personality, serviceNowMs(ctx));
	const lead: Record<string, unknown> = {
		id: base.id ?? newLeadId(ctx),
		companyId: ctx.state.companyId,
	};
	for (const fieldId of STANDARD_LEAD_FIELD_IDS) {
		if (fields[fieldId] !== undefined && fields[fieldId] !== null)
			lead[fieldId] = copyValue(fields[fieldId]);
	}
	lead.status = base.status ?? 'active';
	lead.createdAt = base.createdAt ?? now;
	lead.updatedAt = base.updatedAt ?? base.createdAt ?? now;
	const custom: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(customFields)) custom[key] = copyValue(value);
	lead.customFields = custom;
	return lead as unknown as Lead;
}

/** updatedAt moves forward on every change, even twice within the service's timestamp resolution. */
function nextUpdatedAt(ctx: SimContext, previous: string): string {
	const step = timestampResolutionMs(ctx.personality);
	const now = Math.floor(serviceNowMs(ctx) / step) * step;
	const before = Date.parse(previous);
	return serviceTimestamp(
		ctx.personality,
		Number.isNaN(before) || now > before ? now : before + step,
	);
}

/** API create: `write` is already validated. */
export function createLead(ctx: SimContext, write: LeadWrite): Lead {
	const lead = assemble(ctx, write.set, write.customSet, {});
	ctx.state.leads.insert(lead);
	ctx.deliveries.emit('lead/create', lead.id);
	return lead;
}

/** API update: partial, customFields merged key by key. */
export function updateLead(ctx: SimContext, lead: Lead, write: LeadWrite): Lead {
	const target = lead as unknown as Record<string, unknown>;
	for (const [key, value] of Object.entries(write.set)) target[key] = copyValue(value);
	for (const key of write.unset) delete target[key];
	for (const [key, value] of Object.entries(write.customSet))
		lead.customFields[key] = copyValue(value);
	for (const key of write.customUnset) delete lead.customFields[key];
	lead.updatedAt = nextUpdatedAt(ctx, lead.updatedAt);
	ctx.state.leads.changed(lead);
	ctx.deliveries.emit('lead/update', lead.id);
	return lead;
}

/** Splits a loose lead (portal, seed) into standard fields and custom fields; unknown top-level keys become custom. */
function splitLoose(fields: Partial<Lead>) {
	const standard: Record<string, unknown> = {};
	const custom: Record<string, unknown> = { ...(fields.customFields ?? {}) };
	for (const [key, value] of Object.entries(fields as Record<string, unknown>)) {
		if (key === 'customFields' || READ_ONLY_LEAD_FIELDS.has(key)) continue;
		if ((STANDARD_LEAD_FIELD_IDS as readonly string[]).includes(key)) standard[key] = value;
		else custom[key] = value;
	}
	return { standard, custom };
}

/** Portal create: no API validation (the portal has its own forms), emits lead/create. */
export function portalCreate(ctx: SimContext, fields: Partial<Lead>): Lead {
	const { standard, custom } = splitLoose(fields);
	const lead = assemble(ctx, standard, custom, { status: fields.status });
	ctx.state.leads.insert(lead);
	ctx.deliveries.emit('lead/create', lead.id);
	return lead;
}

export function portalUpdate(ctx: SimContext, id: string, patch: Partial<Lead>): Lead {
	const lead = ctx.state.leads.get(id);
	if (!lead) throw new Error(`Lead ${id} not found`);
	const { standard, custom } = splitLoose(patch);
	const target = lead as unknown as Record<string, unknown>;
	for (const [key, value] of Object.entries(standard)) {
		if (value === null || value === undefined) delete target[key];
		else target[key] = copyValue(value);
	}
	for (const [key, value] of Object.entries(custom)) {
		if (value === null || value === undefined) delete lead.customFields[key];
		else lead.customFields[key] = copyValue(value);
	}
	if (typeof patch.status === 'string') lead.status = patch.status;
	lead.updatedAt = nextUpdatedAt(ctx, lead.updatedAt);
	ctx.state.leads.changed(lead);
	ctx.deliveries.emit('lead/update', lead.id);
	return lead;
}

export function portalDelete(ctx: SimContext, id: string): void {
	if (!ctx.state.leads.remove(id)) throw new Error(`Lead ${id} not found`);
	ctx.deliveries.emit('lead/delete', id);
}

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Katherine', 'Linus', 'Margaret', 'Dennis', 'Barbara'];
const PLATFORMS = ['hubspot', 'salesforce', 'pipedrive', 'other'];

/** Inserts leads without events; missing fields get plausible values. Fast enough for 50,000. */
export function seedLeads(ctx: SimContext, input: Array<Partial<Lead>> | number): Lead[] {
	const items: Array<Partial<Lead>> =
		typeof input === 'number' ? Array.from({ length: input }, () => ({})) : input;
	const now = serviceTimestamp(ctx.personality, serviceNowMs(ctx));
	const org = ctx.defaults.organization.id;
	const agent = ctx.defaults.agents[0]?.id;
	const created: Lead[] = [];
	let n = ctx.state.leads.size;
	for (const item of items) {
		n++;
		const { standard, custom } = splitLoose(item);
		const firstName = FIRST_NAMES[n % FIRST_NAMES.length];
		const defaults: Record<string, unknown> = {
			firstName,
			lastName: `Seed ${n}`,
			email: `${firstName.toLowerCase()}.seed${n}@example.com`,
			companyName: `Company ${n}`,
			platform: PLATFORMS[n % PLATFORMS.length],
			value: (n % 50) * 100,
			partnerOrganizationId: org,
			agentId: agent,
		};
		if (item.id !== undefined && ctx.state.leads.has(item.id))
			throw new Error(`Lead ${item.id} already exists`);
		const lead = assemble(ctx, { ...defaults, ...standard }, custom, {
			id: item.id,
			status: item.status,
			createdAt: item.createdAt ?? now,
			updatedAt: item.updatedAt,
		});
		ctx.state.leads.insert(lead);
		created.push(lead);
	}
	return created;
}
