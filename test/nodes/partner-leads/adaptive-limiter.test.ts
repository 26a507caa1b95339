import { AdaptiveLimiter } from '../../../nodes/PartnerLeads/helpers/adaptiveLimiter';

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

	it('halves on a 429 once per wave, and grows back by one after a run of successes', () => {
		const limiter = new AdaptiveLimiter(16, 4);
		limiter.onRateLimited(0);
		expect(limiter.concurrency).toBe(8);
		limiter.onRateLimited(0); // the same wave of requests: no second cut
		expect(limiter.concurrency).toBe(8);
		limiter.onRateLimited(1);
		expect(limiter.concurrency).toBe(4);
		for (let n = 0; n < 4; n++) limiter.onSuccess();
		expect(limiter.concurrency).toBe(5);
		for (let n = 0; n < 100; n++) limiter.onSuccess();
		expect(limiter.concurrency).toBe(16);
		for (let generation = 2; generation < 10; generation++) limiter.onRateLimited(generation);
		expect(limiter.concurrency).toBe(1);
	});
});
