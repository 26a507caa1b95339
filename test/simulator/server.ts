/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import express, { Router } from 'express';

import { requireBearer, tokenRouter } from './auth';
import type { ResolvedOptions, SimContext, SimDefaults, SimUrls } from './context';
import { serviceNowMs } from './context';
import { controlRouter } from './control-http';
import { createControl, installDefaults, newClientSecret } from './control';
import { DeliveryEngine } from './deliveries';
import { ApiError, assignRequestId, errorHandler, jsonBody } from './errors';
import { FaultInjector, trafficMiddleware } from './faults';
import { HEX24, Prng, randomSeed } from './ids';
import { leadsRouter } from './leads';
import { BRIEF_DELIVERY_RETRY_DELAYS_MS, resolvePersonality, usePersonality } from './personality';
import { RateLimiter } from './rate-limit';
import { AUTH_PATH, CONTROL_PATH, ENVIRONMENT_PATHS } from './routes';
import { DEFAULT_LEAD_SCHEMA, cloneSchema } from './schema';
import { serviceTimestamp } from './service-values';
import { SimState } from './state';
import { StatsRecorder } from './stats';
import { subscriptionsRouter } from './subscriptions';
import type { Environment, Simulator, SimulatorControl, SimulatorOptions } from './types';

/**
 * Assembles and starts the simulator. Request pipeline for the spec's surface:
 *   request id -> route key, stats, injected faults -> (token endpoint | bearer + company +
 *   rate limit -> JSON body -> handler) -> error envelope.
 * The control API (/__control) sits before all of that: no auth, no faults, no stats.
 */

function resolveOptions(options: SimulatorOptions): ResolvedOptions {
	const chosen = options.delivery ?? {};
	const personality = resolvePersonality(options.personality);
	// The personality's retry schedule and deliveries at once where the caller chose none.
	const brief =
		personality.deliveryRetries === 'brief' &&
		chosen.maxAttempts === undefined &&
		chosen.retryDelaysMs === undefined &&
		chosen.baseDelayMs === undefined;
	const delivery = {
		...(brief ? { retryDelaysMs: [...BRIEF_DELIVERY_RETRY_DELAYS_MS] } : {}),
		maxAttempts: 6,
		baseDelayMs: 1000,
		timeoutMs: 10_000,
		concurrency: personality.deliveriesAtOnce === 'all' ? Infinity : personality.deliveriesAtOnce,
		...options.delivery,
	};
	if (delivery.retryDelaysMs) {
		if (!delivery.retryDelaysMs.every((delay) => delay >= 0))
			throw new Error('delivery.retryDelaysMs must hold delays of 0 ms or more');
		delivery.maxAttempts = delivery.retryDelaysMs.length + 1;
	}
	const retryDelaysMs =
		delivery.retryDelaysMs ??
		Array.from(
			{ length: Math.max(0, delivery.maxAttempts - 1) },
			(_, retry) => delivery.baseDelayMs * 2 ** retry,
		);
	if (!(delivery.maxAttempts >= 1)) throw new Error('delivery.maxAttempts must be at least 1');
	if (!(delivery.concurrency >= 1)) throw new Error('delivery.concurrency must be at least 1');
	const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
	if (!(tokenLifetimeSeconds > 0)) throw new Error('tokenLifetimeSeconds must be positive');
	return {
		tokenLifetimeSeconds,
		allowInsecureLoopbackWebhooks: options.allowInsecureLoopbackWebhooks ?? false,
		delivery: { ...delivery, retryDelaysMs },
		rateLimitPerSecond: options.rateLimitPerSecond ?? null,
		clockOffsetMs: clockOffset(options.clockOffsetMs),
		seed: options.seed ?? randomSeed(),
		defaultKeySelfServe: options.defaultKeySelfServe ?? true,
		schema: cloneSchema(options.schema ?? DEFAULT_LEAD_SCHEMA),
		onTokenRequest: options.onTokenRequest,
	};
}

function clockOffset(value: number | undefined): number {
	if (value === undefined) return 0;
	if (!Number.isFinite(value)) throw new Error('clockOffsetMs must be a finite number of ms');
	return value;
}

/** Only loopback: the simulator must never be reachable from (or talk to) another machine. */
function loopbackHost(host: string | undefined): { listen: string; inUrl: string } {
	const value = host ?? '127.0.0.1';
	if (value === 'localhost' || /^127(\.\d{1,3}){3}$/.test(value)) {
		const listen = value === 'localhost' ? '127.0.0.1' : value;
		return { listen, inUrl: listen };
	}
	if (value === '::1' || value === '[::1]') return { listen: '::1', inUrl: '[::1]' };
	throw new Error(
		`The simulator listens on loopback only; host "${value}" is not a loopback address`,
	);
}

function createDefaults(ids: Prng, options: SimulatorOptions, selfServe: boolean): SimDefaults {
	const organization = { id: ids.hex(24), name: 'Acme Partners' };
	const otherOrganization = { id: ids.hex(24), name: 'Globex Resellers' };
	return {
		key: {
			clientId: options.defaultKeyCredentials?.clientId ?? 'sim_' + ids.hex(32),
			clientSecret: options.defaultKeyCredentials?.clientSecret ?? newClientSecret(),
			selfServe,
			revoked: false,
		},
		organization,
		agents: [
			{ id: ids.hex(24), partnerOrganizationId: organization.id, name: 'Alice Agent' },
			{ id: ids.hex(24), partnerOrganizationId: organization.id, name: 'Bob Agent' },
		],
		otherOrganization,
		otherAgent: {
			id: ids.hex(24),
			partnerOrganizationId: otherOrganization.id,
			name: 'Carol Agent',
		},
	};
}

function buildApp(
	ctx: SimContext,
	control: SimulatorControl,
	info: () => unknown,
): express.Express {
	const app = express();
	app.disable('x-powered-by');
	// No ETag: a 50,000-lead list should not be hashed, and 304s would hide real answers.
	app.set('etag', false);
	app.use(assignRequestId);
	app.use(CONTROL_PATH, controlRouter(ctx, control, info));
	// The control API answers in its own fixed shape; the service's routes in the personality's.
	app.use(usePersonality(ctx.personality));
	app.use(dateHeader(ctx));
	app.use(trafficMiddleware(ctx.faults, ctx.stats));
	app.use(AUTH_PATH, tokenRouter(ctx));
	for (const [environment, path] of Object.entries(ENVIRONMENT_PATHS) as Array<
		[Environment, string]
	>) {
		const api = Router();
		api.use(requireBearer(ctx, environment));
		api.use(jsonBody);
		api.use(leadsRouter(ctx));
		api.use(subscriptionsRouter(ctx));
		app.use(path, api);
	}
	app.use((req) => {
		throw new ApiError(404, 'route_not_found', `No endpoint ${req.method} ${req.path}`);
	});
	app.use(errorHandler);
	return app;
}

/** The Date header in the service's own clock, or none (the personality's `dateHeader`). */
function dateHeader(ctx: SimContext): express.RequestHandler {
	return (_req, res, next) => {
		if (ctx.personality.dateHeader === 'none') res.sendDate = false;
		else res.setHeader('Date', new Date(serviceNowMs(ctx)).toUTCString());
		next();
	};
}

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve(server.address() as AddressInfo);
		});
	});
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const resolved = resolveOptions(options);
	const personality = resolvePersonality(options.personality);
	const host = loopbackHost(options.host);
	const ids = new Prng(resolved.seed);
	// Separate streams: fault dice stay the same however many ids a test generates.
	const faultDice = new Prng(resolved.seed ^ 0x5bd1e995);
	const deliveryDice = new Prng(resolved.seed ^ 0x27d4eb2f);
	const companyId = options.companyId ?? ids.hex(24);
	if (!HEX24.test(companyId))
		throw new Error(`companyId must be 24 lowercase hex characters (got "${companyId}")`);

	const state = new SimState(companyId, resolved.schema, personality.tieOrder);
	const urls: SimUrls = { origin: '', url: '', devUrl: '', authUrl: '', controlUrl: '' };
	const clock = { offsetMs: resolved.clockOffsetMs };
	const ctx: SimContext = {
		clock,
		state,
		urls,
		options: resolved,
		ids,
		deliveries: new DeliveryEngine(resolved.delivery, deliveryDice, ids, state.subscriptions, () =>
			serviceTimestamp(personality, serviceNowMs({ clock })),
		),
		faults: new FaultInjector(faultDice),
		rateLimiter: new RateLimiter(resolved.rateLimitPerSecond),
		stats: new StatsRecorder(),
		defaults: createDefaults(ids, options, resolved.defaultKeySelfServe),
		personality,
	};
	installDefaults(ctx);
	const control = createControl(ctx);
	const { defaults } = ctx;
	// Copies, so a caller changing what it got cannot change the simulator's defaults.
	const startState = () => ({
		companyId,
		defaultKey: { ...defaults.key },
		defaultPartnerOrganization: { ...defaults.organization },
		defaultAgents: defaults.agents.map((agent) => ({ ...agent })),
		otherPartnerOrganization: { ...defaults.otherOrganization },
		otherAgent: { ...defaults.otherAgent },
	});
	const info = () => ({
		...urls,
		tokenEndpoint: `${urls.authUrl}/oauth/token`,
		...startState(),
		tokenLifetimeSeconds: resolved.tokenLifetimeSeconds,
		allowInsecureLoopbackWebhooks: resolved.allowInsecureLoopbackWebhooks,
		personality: personality.name,
	});

	const server = http.createServer(buildApp(ctx, control, info));
	const address = await listen(server, options.port ?? 0, host.listen);
	urls.origin = `http://${host.inUrl}:${address.port}`;
	urls.url = urls.origin + ENVIRONMENT_PATHS.production;
	urls.devUrl = urls.origin + ENVIRONMENT_PATHS.nonProduction;
	urls.authUrl = urls.origin + AUTH_PATH;
	urls.controlUrl = urls.origin + CONTROL_PATH;

	let closing: Promise<void> | undefined;
	const close = () => {
		closing ??= new Promise<void>((resolve) => {
			ctx.deliveries.close();
			ctx.faults.close();
			server.close(() => resolve());
			// Keep-alive sockets would otherwise hold the process (and jest) open.
			server.closeAllConnections();
		});
		return closing;
	};

	return {
		...urls,
		...startState(),
		personality,
		control,
		close,
	};
}
