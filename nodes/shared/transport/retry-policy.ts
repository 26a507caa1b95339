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
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
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
