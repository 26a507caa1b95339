/**
 * The public contract of the Partner Referral Service simulator.
 *
 * Tests, benchmarks, the demo and the e2e suite code against these types only.
 * The simulator implements the spec (`../shared/spec/partner-referral-service.md`) with the
 * open points answered by a personality (personality.ts).
 *
 * Addresses (all on 127.0.0.1, one port):
 *   production API base address      `${url}`      e.g. http://127.0.0.1:4010/prod
 *   non-production API base address  `${devUrl}`   e.g. http://127.0.0.1:4010/dev
 *   token issuer                      `${authUrl}`  e.g. http://127.0.0.1:4010/auth  (POST /oauth/token under it)
 *   control API (not the spec's)      `${controlUrl}` e.g. http://127.0.0.1:4010/__control
 * The audience of a token is the API base address of its environment (`url` or `devUrl`).
 */

import type { Personality } from './personality';

export type Environment = 'production' | 'nonProduction';

export type LeadTopic = 'lead/create' | 'lead/update' | 'lead/delete';

export type SchemaFieldType =
	| 'string'
	| 'textarea'
	| 'email'
	| 'phone'
	| 'url'
	| 'number'
	| 'currency'
	| 'boolean'
	| 'date'
	| 'datetime'
	| 'picklist'
	| 'multipicklist'
	// Any other string: clients treat it as string.
	| (string & {});

export interface PicklistValue {
	value: string;
	label: string;
}

/** One entry of `unifiedFields`, as the simulator serves it. */
export interface SchemaField {
	fieldId: string;
	label: string;
	type: SchemaFieldType;
	required: boolean;
	creatable: boolean;
	updateable: boolean;
	/** picklist / multipicklist only */
	picklistValues?: PicklistValue[];
	/** Optional explicit marker; when absent, custom = not one of STANDARD_LEAD_FIELD_IDS. */
	isCustom?: boolean;
	/** Anything else a test wants to serve verbatim (e.g. `options` in another shape). */
	[extra: string]: unknown;
}

export interface Lead {
	id: string;
	companyId: string;
	firstName?: string;
	lastName?: string;
	email?: string;
	phone?: string;
	companyName?: string;
	websiteUrl?: string;
	notes?: string;
	platform?: string;
	value?: number;
	closeDate?: string;
	partnerOrganizationId?: string;
	agentId?: string;
	status: string;
	createdAt: string;
	updatedAt: string;
	customFields: Record<string, unknown>;
}

export interface ApiKey {
	clientId: string;
	clientSecret: string;
	/** Self-serve keys (the portal's Developer / API Keys page) need partnerOrganizationId and agentId on create. */
	selfServe: boolean;
	revoked: boolean;
}

export interface PartnerOrganization {
	id: string;
	name: string;
}

export interface Agent {
	id: string;
	partnerOrganizationId: string;
	name: string;
}

export interface Subscription {
	id: string;
	topic: LeadTopic;
	url: string;
	signingSecret: string;
	/** clientId of the key that created it */
	ownerClientId: string;
	createdAt: string;
}

/** One delivery attempt, as recorded by the simulator. */
export interface DeliveryAttempt {
	/** Identifies the logical delivery (one event x one subscription); retries and injected duplicates share it. */
	deliveryId: string;
	subscriptionId: string;
	url: string;
	topic: LeadTopic;
	/** The lead id of the event */
	leadId: string;
	/** The event timestamp (ISO 8601 UTC; with milliseconds unless the personality's timestamps are 'seconds') */
	timestamp: string;
	attempt: number;
	/** true when this attempt is an injected duplicate of an acknowledged delivery */
	duplicate: boolean;
	/** The exact bytes that were sent, as UTF-8 text */
	rawBody: string;
	headers: Record<string, string>;
	/** HTTP status the receiver answered, or undefined when there was no answer (timeout, refused) */
	status?: number;
	error?: string;
	acknowledged: boolean;
	sentAt: string;
	/** when the answer (or the failure) came back */
	answeredAt: string;
}

/** Faults for one route. `route` matches `METHOD path-pattern`, e.g. 'POST /leads', 'GET /leads/:id', 'POST /oauth/token', '*'. */
export interface RouteFaults {
	/** share (0..1) of requests answered 429 with Retry-After */
	rate429?: number;
	/** Retry-After (seconds) of injected 429s, sent as seconds or as the HTTP date that far ahead (personality); default 0 */
	retryAfterSeconds?: number;
	/** share (0..1) of requests answered 500/502/503 before the handler runs (nothing is changed) */
	rate5xx?: number;
	/** the next this many requests are answered 503 before the handler runs, then none: no dice */
	next5xx?: number;
	/** share (0..1) of requests whose effect IS applied but whose response is a 5xx (tests "never send a create twice") */
	rate5xxAfterEffect?: number;
	/** added latency in ms */
	latencyMs?: number;
	/** requests wait, unanswered, until the faults are set again or cleared (a service stalled until the test says) */
	held?: boolean;
	/** the first this many requests on the route after the faults are set pass untouched (default 0) */
	passFirst?: number;
	/** share (0..1) of requests whose socket is destroyed without an answer, before the handler runs */
	dropRate?: number;
}

export interface DeliveryFaults {
	/** share (0..1) of acknowledged deliveries that are sent once more (same body, same signatures) */
	duplicateRate?: number;
	/** when true, pending deliveries are sent in shuffled order */
	reorder?: boolean;
	/** when true, the receiver cannot be reached (a proxy down, an expired certificate): every attempt fails without a request */
	unreachable?: boolean;
}

export interface DeliveryOptions {
	/** attempts per delivery, default 6 */
	maxAttempts?: number;
	/** first retry delay in ms, doubled each attempt; default 1000 (tests use ~10) */
	baseDelayMs?: number;
	/**
	 * The whole retry schedule instead: the delay before each retry, in ms. `[]` means no
	 * retries at all (one attempt). Overrides maxAttempts and baseDelayMs.
	 */
	retryDelaysMs?: number[];
	/** receiver timeout in ms, default 10000 */
	timeoutMs?: number;
	/** deliveries in flight at once (Infinity: every pending one); default the personality's `deliveriesAtOnce` */
	concurrency?: number;
}

export interface SimulatorOptions {
	/** default 0 (any free port) */
	port?: number;
	/** always loopback; default '127.0.0.1' */
	host?: string;
	/** 24 hex characters; default generated */
	companyId?: string;
	/** token lifetime in seconds; default 3600 */
	tokenLifetimeSeconds?: number;
	/** allow http:// receiver URLs on 127.0.0.1/localhost (the real service refuses non-HTTPS) */
	allowInsecureLoopbackWebhooks?: boolean;
	/** the portal's lead schema; default DEFAULT_LEAD_SCHEMA */
	schema?: SchemaField[];
	delivery?: DeliveryOptions;
	/** per-key rate limit (requests per second, token bucket); default off */
	rateLimitPerSecond?: number;
	/**
	 * The service's clock against the machine's, in ms (negative: behind): createdAt, updatedAt,
	 * subscription and webhook event timestamps are stamped Date.now() + this. Default 0.
	 */
	clockOffsetMs?: number;
	/** seed for the fault dice and generated ids; default random */
	seed?: number;
	/** whether the default key is self-serve; default true */
	defaultKeySelfServe?: boolean;
	/** fixed credentials for the default key (e.g. stable values for the demo); default generated */
	defaultKeyCredentials?: { clientId: string; clientSecret: string };
	/**
	 * How the service answers where the spec says "not shown" (personality.ts): a preset, its
	 * name, or your own. Default: $PARTNER_SIM_PERSONALITY when set, else DEFAULT_PERSONALITY.
	 */
	personality?: Personality | string;
	/**
	 * Told the client's address and port of every token request as it arrives, while its
	 * connection is open (the e2e suite finds which n8n process sent it).
	 */
	onTokenRequest?: (client: { address: string; port: number }) => void;
}

export interface RequestStats {
	tokenRequests: number;
	/** successful (2xx) token responses */
	tokensIssued: number;
	/** count per route key, e.g. 'GET /schema/lead', 'POST /leads', 'GET /leads', 'GET /leads/:id', 'PATCH /leads/:id', 'POST /subscriptions', 'GET /subscriptions', 'DELETE /subscriptions/:id' */
	byRoute: Record<string, number>;
	/** every answered status, per route key, e.g. { 'POST /leads': { 201: 3, 429: 1 } } */
	statusesByRoute: Record<string, Record<number, number>>;
}

export interface SimulatorControl {
	/** Keys */
	createKey(options?: { selfServe?: boolean; clientId?: string; clientSecret?: string }): ApiKey;
	/** Revokes the key: new tokens are refused, issued ones work until they expire, its subscriptions are deleted. */
	revokeKey(clientId: string): void;
	/** Makes every issued token expire now (the next request with it gets 401). */
	expireTokens(): void;
	/** Every key, including revoked ones (copies). */
	listKeys(): ApiKey[];
	/** Every access token issued and not yet removed (for leak audits). */
	issuedTokens(): string[];

	/** Portal data */
	setSchema(fields: SchemaField[]): void;
	/** Serve this exact JSON as the schema response body (to test other shapes); null restores normal. */
	setRawSchemaResponse(body: unknown | null): void;
	getSchema(): SchemaField[];
	addPartnerOrganization(org?: Partial<PartnerOrganization>): PartnerOrganization;
	addAgent(partnerOrganizationId: string, agent?: Partial<Agent>): Agent;
	listPartnerOrganizations(): PartnerOrganization[];
	/** All agents, or those of one partner organization. */
	listAgents(partnerOrganizationId?: string): Agent[];
	/** Inserts leads directly (no events); missing fields get plausible values. */
	seedLeads(leads: Array<Partial<Lead>> | number): Lead[];
	listLeads(): Lead[];
	getLead(id: string): Lead | undefined;

	/** Acting "in the portal": changes data and emits the webhook event (lead/delete exists only here). */
	portalCreateLead(fields: Partial<Lead>): Lead;
	portalUpdateLead(id: string, patch: Partial<Lead>): Lead;
	portalDeleteLead(id: string): void;

	/** Webhooks */
	listSubscriptions(): Subscription[];
	/** Deletes a subscription "in the portal" (as an admin would, or another integration): deliveries for it stop. */
	portalDeleteSubscription(id: string): void;
	deliveries(): DeliveryAttempt[];
	setDeliveryFaults(faults: DeliveryFaults): void;
	/** Resolves when no delivery is pending or in flight (including retries), or rejects after timeoutMs. */
	waitForDeliveries(timeoutMs?: number): Promise<void>;

	/** Faults and limits */
	setFaults(route: string, faults: RouteFaults | null): void;
	clearFaults(): void;
	setRateLimit(requestsPerSecond: number | null): void;
	/** The service's clock runs this many ms ahead of the machine's (negative: behind); reset() restores the option. */
	setClockOffset(offsetMs: number): void;

	/** Observation */
	stats(): RequestStats;
	resetStats(): void;

	/** Everything back to the start state (schema, data, keys other than the default, subscriptions, faults, stats). */
	reset(): void;
}

export interface Simulator {
	/** production API base address (also the production audience) */
	url: string;
	/** non-production API base address (also the non-production audience) */
	devUrl: string;
	/** token issuer address; the token endpoint is `${authUrl}/oauth/token` */
	authUrl: string;
	/** control API root (HTTP mirror of `control`, for other processes) */
	controlUrl: string;
	companyId: string;
	/** the key every simulator starts with */
	defaultKey: ApiKey;
	/** the partner organization and agents every simulator starts with */
	defaultPartnerOrganization: PartnerOrganization;
	defaultAgents: Agent[];
	/** a second partner organization with one agent (e.g. for "agent does not belong to the organization") */
	otherPartnerOrganization: PartnerOrganization;
	otherAgent: Agent;
	/** `http://127.0.0.1:<port>`: every address above starts with it */
	origin: string;
	/** the personality this simulator answers with (resolved from the option or the environment) */
	personality: Personality;
	control: SimulatorControl;
	close(): Promise<void>;
}
