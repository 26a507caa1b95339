/* eslint-disable @n8n/community-nodes/no-restricted-globals -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
import type { RouteFaults, SimulatorControl } from '../../test/simulator/types';

/**
 * Every fault at once. Shares are per request; `*` applies to every route of the service
 * (the token endpoint included) and a route's own entry adds to it.
 */
export const ALL_ROUTES_FAULTS: RouteFaults = {
	rate429: 0.05,
	retryAfterSeconds: 0,
	rate5xx: 0.04,
	rate5xxAfterEffect: 0.04,
	dropRate: 0.02,
	latencyMs: 3,
};

/** The trigger's lead fetch fails often: its deliveries must be retried by the service, not lost. */
export const LEAD_FETCH_FAULTS: RouteFaults = {
	...ALL_ROUTES_FAULTS,
	rate5xx: 0.15,
	dropRate: 0.05,
	latencyMs: 5,
};

/** Creates are where a 5xx after the effect matters most (a resent create is a duplicate). */
export const CREATE_FAULTS: RouteFaults = { ...ALL_ROUTES_FAULTS, rate5xxAfterEffect: 0.08 };

export const DELIVERY_FAULTS = { duplicateRate: 0.2, reorder: true };

export function injectAllFaults(control: SimulatorControl): void {
	control.setFaults('*', ALL_ROUTES_FAULTS);
	control.setFaults('GET /leads/:id', LEAD_FETCH_FAULTS);
	control.setFaults('POST /leads', CREATE_FAULTS);
	control.setDeliveryFaults(DELIVERY_FAULTS);
}

export function describeFaults(tokenExpirySeconds: number): Record<string, unknown> {
	return {
		allRoutes: ALL_ROUTES_FAULTS,
		'GET /leads/:id': LEAD_FETCH_FAULTS,
		'POST /leads': CREATE_FAULTS,
		deliveries: DELIVERY_FAULTS,
		tokenExpiryEverySeconds: tokenExpirySeconds,
	};
}

/** Calls `tick` every `seconds` until stopped; returns how many times it ran. */
export function every(seconds: number, tick: () => void): { stop: () => number } {
	let count = 0;
	const timer = setInterval(() => {
		count++;
		tick();
	}, seconds * 1000);
	return {
		stop() {
			clearInterval(timer);
			return count;
		},
	};
}
