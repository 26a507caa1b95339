/** How long and how often the transport waits when the service asks it to slow down or fails. */
export const RETRY_POLICY = {
	/** total time one request may spend waiting on 429s before it fails */
	maxRateLimitWaitMs: 120_000,
	maxRateLimitRetries: 12,
	/** one Retry-After is honoured up to this; longer ones count against the budget as this */
	maxSingleWaitMs: 60_000,
	/** backoff when a 429 carries no Retry-After */
	rateLimitBaseDelayMs: 500,
	/** only for requests safe to repeat */
	maxServerErrorRetries: 3,
	serverErrorBaseDelayMs: 300,
	requestTimeoutMs: 60_000,
} as const;

/** Retry-After is either seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(header: string | undefined): number | undefined {
	if (header === undefined || header.trim() === '') return undefined;
	const seconds = Number(header);
	if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
	const date = Date.parse(header);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Exponential backoff with full jitter: a random wait in [0, base * 2^attempt]. */
export function backoffMs(baseMs: number, attempt: number): number {
	const ceiling = Math.min(baseMs * 2 ** attempt, RETRY_POLICY.maxSingleWaitMs);
	return Math.round(Math.random() * ceiling);
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
	/** the credential was read again after a refusal (a new key may have been saved) */
	credentialReadAgain: boolean;
}

export const NO_RETRIES_YET: RetryState = {
	rateLimitRetries: 0,
	rateLimitWaitedMs: 0,
	serverErrorRetries: 0,
	renewToken: false,
	credentialReadAgain: false,
};

export interface RetrySettings {
	repeatable: boolean;
	rateLimitBudgetMs: number;
	/** a 403 came back also with a fresh token earlier in this node run */
	freshTokenRefusedInRun: boolean;
}

export interface RetryFailure {
	status?: number;
	retryAfter?: string;
	credentialProblem?: string;
	credentialProblemTemporary?: boolean;
}

export interface RetryDecision {
	/** readCredentialAgain: retried only if the credential saved now is another one */
	next: 'renewToken' | 'readCredentialAgain' | 'retry' | 'giveUp';
	waitMs: number;
	/** told to a parallel caller even when giving up */
	rateLimitedMs?: number;
	serverError: boolean;
	/** a 403 came back with a renewed token: later 403s of the run are not about the token */
	freshTokenRefused: boolean;
	state: RetryState;
}

/** Refused as whom it is: the key or its token (401/403), or the token exchange itself. */
function refusedCredential(failure: RetryFailure): boolean {
	if (failure.credentialProblem !== undefined) return failure.credentialProblemTemporary !== true;
	return failure.status === 401 || failure.status === 403;
}

/**
 * A 403 renews the token once (it may mean expired), with the credential read again; any other
 * refusal reads it again once (a new key may have been saved); 429s wait; 5xx retry only if
 * repeatable.
 */
export function decideRetry(
	failure: RetryFailure,
	state: RetryState,
	settings: RetrySettings,
): RetryDecision {
	const serverError = isServerError(failure.status);
	const decision = { waitMs: 0, serverError, freshTokenRefused: false, state };
	const readAgain = { ...state, credentialReadAgain: true };
	if (failure.status === 403 && !state.renewToken && !settings.freshTokenRefusedInRun) {
		return { ...decision, next: 'renewToken', state: { ...readAgain, renewToken: true } };
	}
	decision.freshTokenRefused = failure.status === 403 && state.renewToken;
	if (refusedCredential(failure) && !state.credentialReadAgain)
		return { ...decision, next: 'readCredentialAgain', state: readAgain };
	if (failure.status === 429) return rateLimitDecision(failure, decision, settings);
	const retriable = !failure.credentialProblem && (serverError || failure.status === undefined);
	if (
		settings.repeatable &&
		retriable &&
		state.serverErrorRetries < RETRY_POLICY.maxServerErrorRetries
	) {
		const waitMs = backoffMs(RETRY_POLICY.serverErrorBaseDelayMs, state.serverErrorRetries);
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
		retryAfterMs(failure.retryAfter) ??
			backoffMs(RETRY_POLICY.rateLimitBaseDelayMs, state.rateLimitRetries),
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
