import { isoTimeMs } from '../../shared/isoTime';

/** Accepted event times: a window the deduplication store covers, so old replays are refused. */

/** Default Maximum Event Age: outlasts the delivery retries of webhook services (hours to a few days). */
export const DEFAULT_MAX_EVENT_AGE_HOURS = 72;

/** How far in the future an event time may be, for clocks that disagree a little. */
export const FUTURE_ALLOWANCE_SECONDS = 5 * 60;

export type EventAge =
	| { verdict: 'inWindow' | 'tooOld' | 'inFuture'; timeSeconds: number }
	| { verdict: 'unreadable' };

/** Event time in whole seconds since the epoch; undefined when it is not a date. */
export function eventTimeSeconds(timestamp: string): number | undefined {
	const ms = isoTimeMs(timestamp);
	return ms === undefined ? undefined : Math.floor(ms / 1000);
}

export function maxEventAgeSeconds(hours: unknown): number {
	const value = Number(hours);
	return Number.isFinite(value) && value > 0
		? Math.round(value * 3600)
		: DEFAULT_MAX_EVENT_AGE_HOURS * 3600;
}

export function judgeEventAge(timestamp: string, maxAgeSeconds: number): EventAge {
	const timeSeconds = eventTimeSeconds(timestamp);
	if (timeSeconds === undefined) return { verdict: 'unreadable' };
	const nowSeconds = Math.floor(Date.now() / 1000);
	if (timeSeconds < nowSeconds - maxAgeSeconds) return { verdict: 'tooOld', timeSeconds };
	if (timeSeconds > nowSeconds + FUTURE_ALLOWANCE_SECONDS)
		return { verdict: 'inFuture', timeSeconds };
	return { verdict: 'inWindow', timeSeconds };
}
