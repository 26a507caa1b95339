/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import { AdaptiveLimiter } from '../../../nodes/PartnerLeads/helpers/adaptiveLimiter';

/**
 * Successes that raise the allowed concurrency by one once slow start is over (or off). Not a
 * setting: the limiter's built-in pace (adaptiveLimiter.ts, onSuccess). The tests below find it
 * from the limiter's behaviour: one success fewer grows nothing, this many grow by one.
 */
const GROW_AFTER_SUCCESSES = 8;

/**
 * How many slots the limiter grants at once right now, found the way the item loop meets
 * it: ask for more than any limit, count the grants before anything is released, then give
 * every slot back.
 */
async function grantedAtOnce(limiter: AdaptiveLimiter): Promise<number> {
	let granted = 0;
	let counting = true;
	const counted = new Promise<void>((resolve) => setImmediate(resolve));
	const requests = Array.from({ length: 100 }, async () => {
		await limiter.acquire();
		if (counting) granted++;
		await counted;
		limiter.release();
	});
	await counted;
	counting = false;
	await Promise.all(requests);
	return granted;
}

describe('AdaptiveLimiter', () => {
	it('grants up to its maximum and queues the rest in order', async () => {
		const limiter = new AdaptiveLimiter(2);
		const order: number[] = [];
		await limiter.acquire();
		await limiter.acquire();
		const third = limiter.acquire().then(() => order.push(3));
		const fourth = limiter.acquire().then(() => order.push(4));
		await Promise.resolve();
		expect(order).toEqual([]);
		limiter.release();
		await third;
		expect(order).toEqual([3]);
		limiter.release();
		await fourth;
		expect(order).toEqual([3, 4]);
	});

	it('pinned to 1, never grants a second slot, whatever the answers', async () => {
		const limiter = new AdaptiveLimiter(1);
		await limiter.acquire();
		let second = false;
		const waiting = limiter.acquire().then(() => (second = true));
		for (let n = 0; n < 50; n++) limiter.onSuccess();
		await Promise.resolve();
		expect(second).toBe(false);
		limiter.release();
		await waiting;
		expect(second).toBe(true);
	});

	it('halves on a 429 once per wave, and grows back by one after a run of successes', async () => {
		const limiter = new AdaptiveLimiter({ max: 16 });
		limiter.onRateLimited(0);
		expect(await grantedAtOnce(limiter)).toBe(8);
		limiter.onRateLimited(0); // the same wave of requests: no second cut
		expect(await grantedAtOnce(limiter)).toBe(8);
		limiter.onRateLimited(1);
		expect(await grantedAtOnce(limiter)).toBe(4);
		for (let n = 0; n < GROW_AFTER_SUCCESSES - 1; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(4);
		limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(5);
		for (let n = 0; n < 100; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(16);
		for (let generation = 2; generation < 10; generation++) limiter.onRateLimited(generation);
		expect(await grantedAtOnce(limiter)).toBe(1);
	});

	it('halves on a 5xx as on a 429', async () => {
		const limiter = new AdaptiveLimiter({ max: 32, initial: 20 });
		limiter.onServerError(0);
		expect(await grantedAtOnce(limiter)).toBe(10);
		limiter.onServerError(0);
		expect(await grantedAtOnce(limiter)).toBe(10);
		limiter.onServerError(1);
		expect(await grantedAtOnce(limiter)).toBe(5);
	});

	it('automatic: starts at its initial value, adds one per success up to the cap until the first 429, then grows slowly', async () => {
		const limiter = new AdaptiveLimiter({ max: 32, initial: 8, slowStart: true });
		expect(await grantedAtOnce(limiter)).toBe(8);
		for (let n = 0; n < 10; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(18);
		for (let n = 0; n < 100; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(32);
		limiter.onRateLimited(0);
		expect(await grantedAtOnce(limiter)).toBe(16);
		// slow start is over: one more slot per GROW_AFTER_SUCCESSES successes, not per success
		for (let n = 0; n < GROW_AFTER_SUCCESSES - 1; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(16);
		for (let n = 0; n < 3; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(17);
	});

	describe("with a fake clock and timers (n8n's sleep is a setTimeout)", () => {
		beforeEach(() => jest.useFakeTimers({ now: 1_000 }));
		afterEach(() => {
			jest.useRealTimers();
			jest.restoreAllMocks();
		});

		/** Records the waits the limiter sleeps, as the timers it sets from now on. */
		function recordSleeps(): () => Array<number | undefined> {
			const timers = jest.spyOn(global, 'setTimeout');
			return () => timers.mock.calls.map((call) => call[1]);
		}

		/** Acquires a slot; `done` tells whether it was granted yet (the clock moves only when told). */
		function acquiring(limiter: AdaptiveLimiter): { done: () => boolean; slot: Promise<number> } {
			let granted = false;
			const slot = limiter.acquire().then((generation) => {
				granted = true;
				return generation;
			});
			return { done: () => granted, slot };
		}

		it('after a 429, starts no request until its Retry-After has passed', async () => {
			const slept = recordSleeps();
			const limiter = new AdaptiveLimiter({ max: 4 });
			const generation = await limiter.acquire();
			limiter.onRateLimited(generation, 1_500);
			limiter.release();
			const startedAt = Date.now();
			const first = acquiring(limiter);
			await jest.advanceTimersByTimeAsync(1_499);
			expect(first.done()).toBe(false);
			await jest.advanceTimersByTimeAsync(1);
			await first.slot;
			limiter.release();
			expect(Date.now() - startedAt).toBe(1_500);
			expect(slept()).toEqual([1_500]);
			// a later, shorter Retry-After does not shorten the pause already asked for
			limiter.onRateLimited(generation, 3_000);
			limiter.onRateLimited(generation, 500);
			const second = acquiring(limiter);
			await jest.advanceTimersByTimeAsync(2_999);
			expect(second.done()).toBe(false);
			await jest.advanceTimersByTimeAsync(1);
			await second.slot;
			limiter.release();
			expect(slept()).toEqual([1_500, 3_000]);
			// without a 429, no wait: granted with the clock standing still
			await limiter.acquire();
			expect(slept()).toHaveLength(2);
			expect(jest.getTimerCount()).toBe(0);
		});
	});
});
