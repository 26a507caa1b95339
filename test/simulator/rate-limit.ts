/**
 * Per-key token bucket: `rate` requests per second, bursts up to `rate`.
 * The spec only says "429, the client backs off"; the numbers are the test's choice.
 */
export class RateLimiter {
	private rate: number | null;
	private readonly buckets = new Map<string, { tokens: number; at: number }>();

	constructor(requestsPerSecond: number | null | undefined) {
		this.rate = RateLimiter.normalise(requestsPerSecond);
	}

	private static normalise(rate: number | null | undefined): number | null {
		if (rate === null || rate === undefined) return null;
		if (!Number.isFinite(rate) || rate <= 0)
			throw new Error(`Rate limit must be a positive number (got ${rate})`);
		return rate;
	}

	get requestsPerSecond(): number | null {
		return this.rate;
	}

	set(requestsPerSecond: number | null | undefined): void {
		this.rate = RateLimiter.normalise(requestsPerSecond);
		this.buckets.clear();
	}

	/** Takes one token for `clientId`; returns the seconds to wait when the bucket is empty, else null. */
	take(clientId: string, now = Date.now()): number | null {
		const rate = this.rate;
		if (rate === null) return null;
		const capacity = Math.max(1, rate);
		const bucket = this.buckets.get(clientId) ?? { tokens: capacity, at: now };
		bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
		bucket.at = now;
		this.buckets.set(clientId, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return null;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
	}
}
