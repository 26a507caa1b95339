/** How long and how often the transport waits when the service asks it to slow down or fails. */
export const RETRY_POLICY = {
	/** total time one request may spend waiting on 429s before it fails */
	maxRateLimitWaitMs: 120_000,
	maxRateLimitRetries: 12,
	/** one Retry-After is honoured up to this; longer ones count against the budget as this */
	maxSingleWaitMs: 60_000,
	/** backoff when a 429 carries no Retry-After */
	rateLimitBaseDelayMs: 500,
	/** 5xx and network errors, for requests that are safe to repeat */
	maxServerErrorRetries: 3,
	serverErrorBaseDelayMs: 300,
	requestTimeoutMs: 60_000,
} as const;

/** Retry-After is either seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(
	header: string | undefined,
	now: number = Date.now(),
): number | undefined {
	if (header === undefined || header.trim() === '') return undefined;
	const seconds = Number(header);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter: a random wait in [0, base * 2^attempt]. */
export function backoffMs(
	baseMs: number,
	attempt: number,
	random: () => number = Math.random,
): number {
	const ceiling = Math.min(baseMs * 2 ** attempt, RETRY_POLICY.maxSingleWaitMs);
	return Math.round(random() * ceiling);
}

export function isServerError(status: number | undefined): boolean {
	return status !== undefined && status >= 500;
}

/** What one request has spent on retries so far. */
export interface RetryState {
	rateLimitRetries: number;
	rateLimitWaitedMs: number;
	serverErrorRetries: number;
	/** every attempt from now on empties the token first, so n8n renews it (set by a 403) */
	renewToken: boolean;
}

export const NO_RETRIES_YET: RetryState = {
	rateLimitRetries: 0,
	rateLimitWaitedMs: 0,
	serverErrorRetries: 0,
	renewToken: false,
};

/** What the retry decision needs besides the failure: the request and its node run. */
export interface RetrySettings {
	/** whether the request may be sent again after a 5xx or a lost connection */
	repeatable: boolean;
	/** how long this request may wait on 429s in all */
	rateLimitBudgetMs: number;
	/** a 403 came back also with a fresh token earlier in this node run */
	freshTokenRefusedInRun: boolean;
	random?: () => number;
	now?: number;
}

/** The failure as the decision reads it (see HttpFailure). */
export interface RetryFailure {
	status?: number;
	retryAfter?: string;
	credentialProblem?: string;
}

export interface RetryDecision {
	next: 'renewToken' | 'retry' | 'giveUp';
	/** how long to wait before sending again ('retry'; 0 = at once) */
	waitMs: number;
	/** a 429's wait, told to a caller running requests in parallel even when giving up */
	rateLimitedMs?: number;
	/** a 5xx, told to a caller running requests in parallel so it sends less */
	serverError: boolean;
	/** a 403 came back with a renewed token: later 403s of the run are not about the token */
	freshTokenRefused: boolean;
	state: RetryState;
}

/**
 * What to do after a failed attempt; pure, so every case is tested without a service
 * (test/transport/retry-decision.test.ts). n8n renews the token and repeats after a 401 by
 * itself; a service may answer an expired token with 403 instead (the service documents
 * either), so a 403 renews once. A 429 waits as asked (or backs off) within the request's
 * budget; a 5xx or a lost connection is retried with backoff only when the request is safe
 * to repeat.
 */
export function decideRetry(
	failure: RetryFailure,
	state: RetryState,
	settings: RetrySettings,
): RetryDecision {
	const serverError = isServerError(failure.status);
	const decision = { waitMs: 0, serverError, freshTokenRefused: false, state };
	if (failure.status === 403 && !state.renewToken && !settings.freshTokenRefusedInRun) {
		return { ...decision, next: 'renewToken', state: { ...state, renewToken: true } };
	}
	decision.freshTokenRefused = failure.status === 403 && state.renewToken;
	if (failure.status === 429) return rateLimitDecision(failure, decision, settings);
	const retriable = !failure.credentialProblem && (serverError || failure.status === undefined);
	if (
		settings.repeatable &&
		retriable &&
		state.serverErrorRetries < RETRY_POLICY.maxServerErrorRetries
	) {
		const waitMs = backoffMs(
			RETRY_POLICY.serverErrorBaseDelayMs,
			state.serverErrorRetries,
			settings.random,
		);
		const next = { ...state, serverErrorRetries: state.serverErrorRetries + 1 };
		return { ...decision, next: 'retry', waitMs, state: next };
	}
	return { ...decision, next: 'giveUp' };
}

function rateLimitDecision(
	failure: RetryFailure,
	decision: Omit<RetryDecision, 'next'>,
	settings: RetrySettings,
): RetryDecision {
	const { state } = decision;
	const waitMs = Math.min(
		retryAfterMs(failure.retryAfter, settings.now) ??
			backoffMs(RETRY_POLICY.rateLimitBaseDelayMs, state.rateLimitRetries, settings.random),
		RETRY_POLICY.maxSingleWaitMs,
	);
	const withinBudget =
		state.rateLimitRetries < RETRY_POLICY.maxRateLimitRetries &&
		state.rateLimitWaitedMs + waitMs <= settings.rateLimitBudgetMs;
	if (!withinBudget) return { ...decision, next: 'giveUp', rateLimitedMs: waitMs };
	const next = {
		...state,
		rateLimitRetries: state.rateLimitRetries + 1,
		rateLimitWaitedMs: state.rateLimitWaitedMs + waitMs,
	};
	return { ...decision, next: 'retry', waitMs, rateLimitedMs: waitMs, state: next };
}
