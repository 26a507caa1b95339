/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import type { RequestHandler, Response } from 'express';

import { sendError } from './errors';
import type { Prng } from './ids';
import { ROUTE_KEYS, routeKeyOf } from './routes';
import type { StatsRecorder } from './stats';
import type { RouteFaults } from './types';

const RATE_FIELDS = ['rate429', 'rate5xx', 'rate5xxAfterEffect', 'dropRate'] as const;

const SERVER_ERRORS: Record<number, [string, string]> = {
	500: [
		'internal_error',
		'The service failed to process the request (simulated fault); nothing was changed',
	],
	502: ['bad_gateway', 'Bad gateway (simulated fault)'],
	503: ['service_unavailable', 'The service is temporarily unavailable (simulated fault)'],
};

/**
 * Injected faults per route key ('POST /leads', ..., or '*' for every spec route).
 * Dice come from a seeded PRNG, and a die is only thrown for a rate strictly between
 * 0 and 1, so the same configuration and seed always fail the same requests.
 */
export class FaultInjector {
	private readonly byRoute = new Map<string, RouteFaults>();
	/** requests still to pass untouched, per route key set with passFirst */
	private readonly passing = new Map<string, number>();
	private readonly timers = new Set<NodeJS.Timeout>();
	/** requests waiting on a `held` route: answered once the faults change */
	private readonly heldRequests = new Set<() => void>();

	constructor(readonly dice: Prng) {}

	set(route: string, faults: RouteFaults | null): void {
		if (route !== '*' && !(ROUTE_KEYS as readonly string[]).includes(route)) {
			throw new Error(`Unknown route key "${route}"; use '*' or one of: ${ROUTE_KEYS.join(', ')}`);
		}
		this.passing.delete(route);
		this.releaseHeld();
		if (faults === null) {
			this.byRoute.delete(route);
			return;
		}
		if (faults.passFirst !== undefined) {
			if (!(Number.isInteger(faults.passFirst) && faults.passFirst >= 0))
				throw new Error(
					`passFirst must be a whole number of 0 or more (got ${String(faults.passFirst)})`,
				);
			this.passing.set(route, faults.passFirst);
		}
		for (const field of RATE_FIELDS) {
			const rate = faults[field];
			if (rate !== undefined && (typeof rate !== 'number' || rate < 0 || rate > 1)) {
				throw new Error(`${field} must be a share between 0 and 1 (got ${String(rate)})`);
			}
		}
		this.byRoute.set(route, { ...faults });
	}

	clear(): void {
		this.byRoute.clear();
		this.passing.clear();
		this.releaseHeld();
	}

	/** Waits until the faults change (a `held` route's requests go on then). */
	held(): Promise<void> {
		return new Promise((resolve) => this.heldRequests.add(resolve));
	}

	private releaseHeld(): void {
		for (const release of this.heldRequests) release();
		this.heldRequests.clear();
	}

	/** Whether this request on the route passes untouched (passFirst not yet used up). */
	private passes(route: string): boolean {
		for (const key of [route, '*']) {
			const left = this.passing.get(key) ?? 0;
			if (left > 0) {
				this.passing.set(key, left - 1);
				return true;
			}
		}
		return false;
	}

	/** Whether the route still has a scheduled 5xx (next5xx); takes it. */
	takeScheduled5xx(route: string): boolean {
		const own = this.byRoute.get(route);
		if (!own?.next5xx || own.next5xx <= 0) return false;
		own.next5xx--;
		return true;
	}

	/** '*' faults with the route's own faults on top. */
	effective(route: string): RouteFaults | undefined {
		if (this.passes(route)) return undefined;
		const all = this.byRoute.get('*');
		const own = this.byRoute.get(route);
		if (!all && !own) return undefined;
		return { ...all, ...own };
	}

	sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, ms);
			this.timers.add(timer);
		});
	}

	/** Stops pending latency timers and holds (their requests die with the closed sockets). */
	close(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		this.releaseHeld();
	}
}

/** Lets the handler run and apply its effect, then replaces whatever it answers with a 5xx. */
function replaceAnswerWith(res: Response, status: number): void {
	const send = res.send.bind(res);
	const [code] = SERVER_ERRORS[status];
	// Every answer (json, text, empty) passes through res.send. The handler's body is
	// discarded: the client must not learn whether the effect happened.
	res.send = (() => {
		res.send = send;
		res.removeHeader('WWW-Authenticate');
		sendError(
			res,
			status,
			code,
			'The service failed while answering (simulated fault); the request may have been applied',
		);
		return res;
	}) as Response['send'];
}

/**
 * First middleware for every spec route: names the route, counts it, and applies faults
 * before any authentication or handler runs (so a 429/5xx/drop changes nothing).
 */
export function trafficMiddleware(faults: FaultInjector, stats: StatsRecorder): RequestHandler {
	return async (req, res, next) => {
		const route = routeKeyOf(req.method, req.path);
		if (!route) return next();
		res.locals.routeKey = route;
		stats.track(route, res);
		const active = faults.effective(route);
		if (!active) return next();
		if (active.held) await faults.held();
		if (active.latencyMs && active.latencyMs > 0) await faults.sleep(active.latencyMs);
		const dice = faults.dice;
		if (dice.chance(active.dropRate)) {
			req.socket.destroy();
			return;
		}
		if (dice.chance(active.rate429)) {
			const retryAfter = Math.max(0, Math.ceil(active.retryAfterSeconds ?? 0));
			return sendError(
				res,
				429,
				'rate_limited',
				`Too many requests (simulated fault); retry after ${retryAfter} seconds`,
				undefined,
				{ 'Retry-After': String(retryAfter) },
			);
		}
		if (faults.takeScheduled5xx(route)) {
			const [code, message] = SERVER_ERRORS[503];
			return sendError(res, 503, code, message);
		}
		if (dice.chance(active.rate5xx)) {
			const status = dice.pick([500, 502, 503]);
			const [code, message] = SERVER_ERRORS[status];
			return sendError(res, status, code, message);
		}
		if (dice.chance(active.rate5xxAfterEffect)) replaceAnswerWith(res, dice.pick([502, 503]));
		next();
	};
}
