import type { DeliveryEngine } from './deliveries';
import type { FaultInjector } from './faults';
import type { Prng } from './ids';
import type { Personality } from './personality';
import type { RateLimiter } from './rate-limit';
import type { SimState } from './state';
import type { StatsRecorder } from './stats';
import type { Agent, ApiKey, DeliveryOptions, PartnerOrganization, SchemaField } from './types';

/** Options with every default filled in. */
export interface ResolvedOptions {
	tokenLifetimeSeconds: number;
	allowInsecureLoopbackWebhooks: boolean;
	delivery: Required<DeliveryOptions>;
	rateLimitPerSecond: number | null;
	seed: number;
	defaultKeySelfServe: boolean;
	schema: SchemaField[];
	clockOffsetMs: number;
	onTokenRequest?: (client: { address: string; port: number }) => void;
}

export interface SimUrls {
	origin: string;
	url: string;
	devUrl: string;
	authUrl: string;
	controlUrl: string;
}

/** The start state that `reset()` returns to (same ids and credentials every time). */
export interface SimDefaults {
	key: ApiKey;
	organization: PartnerOrganization;
	agents: Agent[];
	otherOrganization: PartnerOrganization;
	otherAgent: Agent;
}

/** Everything the route handlers and the control API share. */
export interface SimContext {
	state: SimState;
	urls: SimUrls;
	options: ResolvedOptions;
	/** seeded ids (leads, subscriptions, organizations, agents, deliveries) */
	ids: Prng;
	deliveries: DeliveryEngine;
	faults: FaultInjector;
	rateLimiter: RateLimiter;
	stats: StatsRecorder;
	defaults: SimDefaults;
	/** how the service answers where the spec says "not shown" */
	personality: Personality;
	/** the service's clock against this machine's: its timestamps are Date.now() + offsetMs */
	clock: { offsetMs: number };
}

/** The service's own time (epoch ms): this machine's clock shifted by the clock offset. */
export function serviceNowMs(ctx: Pick<SimContext, 'clock'>): number {
	return Date.now() + ctx.clock.offsetMs;
}
