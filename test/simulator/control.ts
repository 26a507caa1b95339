import type { SimContext } from './context';
import { randomSecret } from './ids';
import { portalCreate, portalDelete, portalUpdate, seedLeads } from './lead-ops';
import { cloneSchema } from './schema';
import { cloneLead } from './state';
import type { Agent, ApiKey, PartnerOrganization, SchemaField, SimulatorControl } from './types';

/**
 * The in-process control API: what a portal admin (and a test) can do outside the spec's
 * surface. Everything returned is a copy; changing it changes nothing in the simulator.
 */

export function newClientId(ctx: SimContext): string {
	return 'sim_' + ctx.ids.hex(32);
}

export function newClientSecret(): string {
	return randomSecret('sim_secret_', 32);
}

function checkSchema(fields: SchemaField[]): void {
	if (!Array.isArray(fields)) throw new Error('The schema must be an array of fields');
	const seen = new Set<string>();
	for (const entry of fields) {
		if (!entry || typeof entry.fieldId !== 'string' || entry.fieldId === '') {
			throw new Error('Every schema field needs a fieldId (string)');
		}
		if (seen.has(entry.fieldId))
			throw new Error(`Duplicate fieldId "${entry.fieldId}" in the schema`);
		seen.add(entry.fieldId);
	}
}

/** Puts schema, keys, organizations, agents, leads and subscriptions back to the start state. */
export function installDefaults(ctx: SimContext): void {
	const { state, defaults, options } = ctx;
	state.schema = cloneSchema(options.schema);
	state.rawSchema = null;
	for (const clientId of [...state.keys.keys()]) {
		if (clientId !== defaults.key.clientId) state.removeKey(clientId);
	}
	const key = state.keys.get(defaults.key.clientId);
	if (key) Object.assign(key, { revoked: false, selfServe: defaults.key.selfServe });
	else state.addKey({ ...defaults.key });
	state.subscriptions.clear();
	state.organizations.clear();
	state.agents.clear();
	state.addOrganization({ ...defaults.organization });
	for (const agent of defaults.agents) state.addAgent({ ...agent });
	state.addOrganization({ ...defaults.otherOrganization });
	state.addAgent({ ...defaults.otherAgent });
	state.leads.clear();
}

export function createControl(ctx: SimContext): SimulatorControl {
	const { state } = ctx;
	return {
		createKey(options = {}) {
			const key: ApiKey = {
				clientId: options.clientId ?? newClientId(ctx),
				clientSecret: options.clientSecret ?? newClientSecret(),
				selfServe: options.selfServe ?? true,
				revoked: false,
			};
			state.addKey(key);
			return { ...key };
		},
		revokeKey(clientId) {
			const key = state.keys.get(clientId);
			if (!key) throw new Error(`No API key with client id ${clientId}`);
			key.revoked = true;
			// Spec section 3: revocation deletes the key's subscriptions.
			state.deleteSubscriptionsOf(clientId);
		},
		expireTokens() {
			for (const token of state.tokens.values()) token.expiresAt = 0;
		},
		listKeys: () => [...state.keys.values()].map((key) => ({ ...key })),
		issuedTokens: () => [...state.tokens.keys()],

		setSchema(fields) {
			checkSchema(fields);
			state.schema = cloneSchema(fields);
		},
		setRawSchemaResponse(body) {
			state.rawSchema =
				body === null || body === undefined ? null : { body: structuredClone(body) };
		},
		getSchema: () => cloneSchema(state.schema),
		addPartnerOrganization(org = {}) {
			const created: PartnerOrganization = {
				id: org.id ?? ctx.ids.hex(24),
				name: org.name ?? `Partner Organization ${state.organizations.size + 1}`,
			};
			state.addOrganization(created);
			return { ...created };
		},
		addAgent(partnerOrganizationId, agent = {}) {
			const created: Agent = {
				id: agent.id ?? ctx.ids.hex(24),
				partnerOrganizationId,
				name: agent.name ?? `Agent ${state.agents.size + 1}`,
			};
			state.addAgent(created);
			return { ...created };
		},
		listPartnerOrganizations: () => [...state.organizations.values()].map((org) => ({ ...org })),
		listAgents: (partnerOrganizationId) =>
			[...state.agents.values()]
				.filter(
					(agent) =>
						!partnerOrganizationId || agent.partnerOrganizationId === partnerOrganizationId,
				)
				.map((agent) => ({ ...agent })),
		seedLeads: (leads) => seedLeads(ctx, leads).map(cloneLead),
		listLeads: () => state.leads.all().map(cloneLead),
		getLead(id) {
			const lead = state.leads.get(id);
			return lead ? cloneLead(lead) : undefined;
		},

		portalCreateLead: (fields) => cloneLead(portalCreate(ctx, fields)),
		portalUpdateLead: (id, patch) => cloneLead(portalUpdate(ctx, id, patch)),
		portalDeleteLead: (id) => portalDelete(ctx, id),

		listSubscriptions: () => [...state.subscriptions.values()].map((sub) => ({ ...sub })),
		portalDeleteSubscription(id) {
			if (!state.subscriptions.delete(id)) throw new Error(`No subscription with id ${id}`);
		},
		deliveries: () => ctx.deliveries.attemptsLog(),
		setDeliveryFaults: (faults) => ctx.deliveries.setFaults(faults),
		waitForDeliveries: (timeoutMs) => ctx.deliveries.waitForIdle(timeoutMs),

		setFaults: (route, faults) => ctx.faults.set(route, faults),
		clearFaults: () => ctx.faults.clear(),
		setRateLimit: (requestsPerSecond) => ctx.rateLimiter.set(requestsPerSecond),
		setClockOffset(offsetMs) {
			if (!Number.isFinite(offsetMs))
				throw new Error('the clock offset must be a finite number of ms');
			ctx.clock.offsetMs = offsetMs;
		},

		stats: () => ctx.stats.snapshot(),
		resetStats: () => ctx.stats.reset(),

		reset() {
			ctx.deliveries.reset();
			ctx.faults.clear();
			ctx.rateLimiter.set(ctx.options.rateLimitPerSecond);
			ctx.clock.offsetMs = ctx.options.clockOffsetMs;
			ctx.stats.reset();
			installDefaults(ctx);
		},
	};
}
