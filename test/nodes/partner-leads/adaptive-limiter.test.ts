/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import type { LimiterClock } from '../../../nodes/PartnerLeads/helpers/adaptiveLimiter';
import { AdaptiveLimiter } from '../../../nodes/PartnerLeads/helpers/adaptiveLimiter';

/** A clock that moves only when a waiter sleeps: each sleep jumps it forward. */
function steppingClock(): LimiterClock & { sleeps: number[] } {
	let now = 1_000;
	const sleeps: number[] = [];
	return {
		sleeps,
		now: () => now,
		sleep: async (ms) => {
			sleeps.push(ms);
			now += ms;
			await Promise.resolve();
		},
	};
}

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
		const limiter = new AdaptiveLimiter({ max: 16, growAfterSuccesses: 4 });
		limiter.onRateLimited(0);
		expect(await grantedAtOnce(limiter)).toBe(8);
		limiter.onRateLimited(0); // the same wave of requests: no second cut
		expect(await grantedAtOnce(limiter)).toBe(8);
		limiter.onRateLimited(1);
		expect(await grantedAtOnce(limiter)).toBe(4);
		for (let n = 0; n < 4; n++) limiter.onSuccess();
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
		const limiter = new AdaptiveLimiter({
			max: 32,
			initial: 8,
			slowStart: true,
			growAfterSuccesses: 8,
		});
		expect(await grantedAtOnce(limiter)).toBe(8);
		for (let n = 0; n < 10; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(18);
		for (let n = 0; n < 100; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(32);
		limiter.onRateLimited(0);
		expect(await grantedAtOnce(limiter)).toBe(16);
		for (let n = 0; n < 10; n++) limiter.onSuccess();
		expect(await grantedAtOnce(limiter)).toBe(17);
	});

	it('after a 429, starts no request until its Retry-After has passed', async () => {
		const clock = steppingClock();
		const limiter = new AdaptiveLimiter({ max: 4, clock });
		const generation = await limiter.acquire();
		limiter.onRateLimited(generation, 1_500);
		limiter.release();
		const startedAt = clock.now();
		await limiter.acquire();
		limiter.release();
		expect(clock.now() - startedAt).toBe(1_500);
		expect(clock.sleeps).toEqual([1_500]);
		// a later, shorter Retry-After does not shorten the pause already asked for
		limiter.onRateLimited(generation, 3_000);
		limiter.onRateLimited(generation, 500);
		await limiter.acquire();
		limiter.release();
		expect(clock.sleeps).toEqual([1_500, 3_000]);
		// without a 429, no wait
		await limiter.acquire();
		expect(clock.sleeps).toHaveLength(2);
	});
});
