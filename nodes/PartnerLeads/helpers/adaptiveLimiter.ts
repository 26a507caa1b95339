/**
 * A bounded number of requests in flight that backs off by itself when the service answers
 * 429: the allowed concurrency halves on a 429 and grows back by one after a run of
 * successes (additive increase, multiplicative decrease, as TCP does). Waiting is done on
 * promises only: no timers.
 */
export class AdaptiveLimiter {
	private inFlight = 0;

	private allowed: number;

	private successesSinceChange = 0;

	/** bumped on every decrease, so one burst of 429s from the same wave halves only once */
	private generation = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(
		readonly max: number,
		private readonly growAfterSuccesses = 8,
	) {
		this.max = Math.max(1, Math.floor(max));
		this.allowed = this.max;
	}

	/** How many requests may be in flight right now. */
	get concurrency(): number {
		return this.allowed;
	}

	/** Waits for a free slot; returns the generation the slot was granted in. */
	async acquire(): Promise<number> {
		if (this.inFlight < this.allowed && this.waiting.length === 0) {
			this.inFlight++;
			return this.generation;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
		return this.generation;
	}

	release(): void {
		this.inFlight--;
		this.wake();
	}

	onSuccess(): void {
		if (this.allowed >= this.max) return;
		this.successesSinceChange++;
		if (this.successesSinceChange >= this.growAfterSuccesses) {
			this.allowed++;
			this.successesSinceChange = 0;
			this.wake();
		}
	}

	/** A 429 for a request whose slot was granted in `generation`. */
	onRateLimited(generation: number): void {
		this.successesSinceChange = 0;
		if (generation !== this.generation) return;
		this.generation++;
		this.allowed = Math.max(1, Math.floor(this.allowed / 2));
	}

	private wake(): void {
		while (this.waiting.length > 0 && this.inFlight < this.allowed) {
			this.inFlight++;
			this.waiting.shift()?.();
		}
	}
}
