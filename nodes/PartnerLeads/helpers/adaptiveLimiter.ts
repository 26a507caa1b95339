import { sleep } from 'n8n-workflow';

export interface LimiterSettings {
	/** the most requests in flight, ever */
	max: number;
	/** requests in flight at the start; default `max` */
	initial?: number;
	/** grow by one per success until the first 429 or 5xx (finds the service's pace fast) */
	slowStart?: boolean;
}

/** Requests in flight, AIMD like TCP: grows on success, halves on 429/5xx, obeys Retry-After. */
export class AdaptiveLimiter {
	readonly max: number;

	private inFlight = 0;

	private allowed: number;

	private slowStart: boolean;

	private successesSinceChange = 0;

	/** bumped on every decrease, so one burst of 429s from the same wave halves only once */
	private generation = 0;

	/** no new request starts before this time (a 429's Retry-After) */
	private pausedUntil = 0;

	private readonly waiting: Array<() => void> = [];

	constructor(settings: LimiterSettings | number) {
		const { max, initial, slowStart } = typeof settings === 'number' ? { max: settings } : settings;
		this.max = Math.max(1, Math.floor(max));
		this.allowed = Math.min(this.max, Math.max(1, Math.floor(initial ?? this.max)));
		this.slowStart = slowStart ?? false;
	}

	/** Waits for a free slot and for any Retry-After to pass; returns the slot's generation. */
	async acquire(): Promise<number> {
		if (this.inFlight < this.allowed && this.waiting.length === 0) {
			this.inFlight++;
		} else {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		}
		// Bounded: pauses come from 429s, which the transport stops retrying after its budget.
		for (let wait = this.pausedUntil - Date.now(); wait > 0; ) {
			await sleep(wait);
			wait = this.pausedUntil - Date.now();
		}
		return this.generation;
	}

	release(): void {
		this.inFlight--;
		this.wake();
	}

	onSuccess(): void {
		if (this.allowed >= this.max) return;
		this.successesSinceChange++;
		const needed = this.slowStart ? 1 : 8;
		if (this.successesSinceChange >= needed) {
			this.allowed++;
			this.successesSinceChange = 0;
			this.wake();
		}
	}

	/** A 429 for a slot granted in `generation`; `retryAfterMs` is the wait the service asked for. */
	onRateLimited(generation: number, retryAfterMs = 0): void {
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + Math.max(0, retryAfterMs));
		this.decrease(generation);
	}

	/** A 5xx: the service is struggling, so send less. */
	onServerError(generation: number): void {
		this.decrease(generation);
	}

	private decrease(generation: number): void {
		this.successesSinceChange = 0;
		this.slowStart = false;
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
