import type { Personality } from './personality';
import { cloneSchema } from './schema';
import type {
	Agent,
	ApiKey,
	Environment,
	Lead,
	PartnerOrganization,
	SchemaField,
	Subscription,
} from './types';

/** What the token endpoint issued: an opaque string bound to a key, an audience and an expiry. */
export interface TokenRecord {
	clientId: string;
	environment: Environment;
	expiresAt: number;
}

/**
 * Leads in creation order and in the order of their last change, plus an id index: list = slice
 * of one order (O(page), paging.ts), get = map lookup. 50,000 leads must list fast, so nothing
 * here sorts; a change moves its lead to the end of the second order (O(n), as a delete), and
 * with `tieOrder` 'lastChange' to the end of its createdAt ties in the first.
 */
export class LeadStore {
	private readonly ordered: Lead[] = [];
	private readonly byChange: Lead[] = [];
	private readonly byId = new Map<string, Lead>();

	constructor(private readonly tieOrder: Personality['tieOrder'] = 'creation') {}

	get size(): number {
		return this.ordered.length;
	}

	insert(lead: Lead): void {
		this.ordered.push(lead);
		this.byChange.push(lead);
		this.byId.set(lead.id, lead);
	}

	get(id: string): Lead | undefined {
		return this.byId.get(id);
	}

	has(id: string): boolean {
		return this.byId.has(id);
	}

	/** The lead changed: it moves to the end of the order by last change (and of its ties). */
	changed(lead: Lead): void {
		const at = this.byChange.lastIndexOf(lead);
		if (at === -1) return;
		this.byChange.splice(at, 1);
		this.byChange.push(lead);
		if (this.tieOrder === 'lastChange') this.toEndOfTies(lead);
	}

	/** As a database sorting by createdAt alone lists ties: in storage order, which a write changes. */
	private toEndOfTies(lead: Lead): void {
		const from = this.ordered.indexOf(lead);
		let to = from;
		while (to + 1 < this.ordered.length && this.ordered[to + 1].createdAt === lead.createdAt) to++;
		this.ordered.splice(from, 1);
		this.ordered.splice(to, 0, lead);
	}

	/** O(n), but only the portal deletes leads. */
	remove(id: string): boolean {
		const lead = this.byId.get(id);
		if (!lead) return false;
		this.byId.delete(id);
		this.ordered.splice(this.ordered.indexOf(lead), 1);
		this.byChange.splice(this.byChange.lastIndexOf(lead), 1);
		return true;
	}

	/** In creation order. */
	all(): readonly Lead[] {
		return this.ordered;
	}

	/** The least recently changed first. */
	byLastChange(): readonly Lead[] {
		return this.byChange;
	}

	clear(): void {
		this.ordered.length = 0;
		this.byChange.length = 0;
		this.byId.clear();
	}
}

/** A copy a caller may keep or change without touching the store. */
export function cloneLead(lead: Lead): Lead {
	return { ...lead, customFields: structuredCloneShallow(lead.customFields) };
}

function structuredCloneShallow(values: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(values))
		out[key] = Array.isArray(value) ? [...value] : value;
	return out;
}

export class SimState {
	schema: SchemaField[];
	/** When set, served verbatim by the schema endpoint. */
	rawSchema: { body: unknown } | null = null;

	readonly keys = new Map<string, ApiKey>();
	readonly keysBySecret = new Map<string, ApiKey>();
	readonly tokens = new Map<string, TokenRecord>();
	readonly organizations = new Map<string, PartnerOrganization>();
	readonly agents = new Map<string, Agent>();
	readonly leads: LeadStore;
	readonly subscriptions = new Map<string, Subscription>();

	constructor(
		readonly companyId: string,
		schema: readonly SchemaField[],
		tieOrder: Personality['tieOrder'] = 'creation',
	) {
		this.schema = cloneSchema(schema);
		this.leads = new LeadStore(tieOrder);
	}

	addKey(key: ApiKey): void {
		if (this.keys.has(key.clientId))
			throw new Error(`A key with client id ${key.clientId} already exists`);
		if (this.keysBySecret.has(key.clientSecret))
			throw new Error('A key with that client secret already exists');
		this.keys.set(key.clientId, key);
		this.keysBySecret.set(key.clientSecret, key);
	}

	removeKey(clientId: string): void {
		const key = this.keys.get(clientId);
		if (!key) return;
		this.keys.delete(clientId);
		this.keysBySecret.delete(key.clientSecret);
		for (const [token, record] of this.tokens)
			if (record.clientId === clientId) this.tokens.delete(token);
		this.deleteSubscriptionsOf(clientId);
	}

	deleteSubscriptionsOf(clientId: string): number {
		let deleted = 0;
		for (const [id, sub] of this.subscriptions) {
			if (sub.ownerClientId === clientId) {
				this.subscriptions.delete(id);
				deleted++;
			}
		}
		return deleted;
	}

	addOrganization(org: PartnerOrganization): void {
		if (this.organizations.has(org.id))
			throw new Error(`Partner organization ${org.id} already exists`);
		this.organizations.set(org.id, org);
	}

	addAgent(agent: Agent): void {
		if (!this.organizations.has(agent.partnerOrganizationId)) {
			throw new Error(`Partner organization ${agent.partnerOrganizationId} does not exist`);
		}
		if (this.agents.has(agent.id)) throw new Error(`Agent ${agent.id} already exists`);
		this.agents.set(agent.id, agent);
	}
}
