/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

import { isoNow, type Prng } from './ids';
import { isLoopbackHostname } from './subscriptions';
import type {
	DeliveryAttempt,
	DeliveryFaults,
	DeliveryOptions,
	LeadTopic,
	Subscription,
} from './types';

/**
 * Webhook deliveries (spec section 6): one POST per event per matching subscription,
 * acknowledged only by HTTP 200; anything else, or no answer within `timeoutMs`, is retried
 * after each delay of `retryDelaysMs` (by default exponential backoff up to `maxAttempts`). Asynchronous: emit() only queues.
 * The simulator never contacts a non-loopback address: such a delivery is recorded as
 * not sent and not retried.
 */

export const USER_AGENT = 'svc-webhooks/1.0.0';

/** A delivery to make; `attempt` counts the attempts made so far. */
type Job = Pick<
	DeliveryAttempt,
	| 'deliveryId'
	| 'subscriptionId'
	| 'url'
	| 'topic'
	| 'leadId'
	| 'timestamp'
	| 'rawBody'
	| 'headers'
	| 'attempt'
	| 'duplicate'
>;

interface Outcome {
	status?: number;
	error?: string;
	/** true when retrying cannot help (the simulator refuses to send) */
	final?: boolean;
}

function hmacHex(secret: string, data: string | Buffer): string {
	return createHmac('sha256', secret).update(data).digest('hex');
}

/** Body serialised once (keys deliberately not alphabetical) and both signatures over it. */
export function signedDelivery(secret: string, id: string, topic: LeadTopic, timestamp: string) {
	const rawBody = JSON.stringify({ id, topic, timestamp });
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'user-agent': USER_AGENT,
		'content-length': String(Buffer.byteLength(rawBody)),
		'x-svc-signature-v2': hmacHex(secret, Buffer.from(rawBody, 'utf8')),
		// Legacy: over a re-serialisation with keys in alphabetical order.
		'x-svc-signature': hmacHex(secret, JSON.stringify({ id, timestamp, topic })),
	};
	return { rawBody, headers };
}

export class DeliveryEngine {
	private pending: Job[] = [];
	private inFlight = 0;
	private pumpTimer: NodeJS.Immediate | null = null;
	private readonly retryTimers = new Set<NodeJS.Timeout>();
	private readonly controllers = new Set<AbortController>();
	private readonly waiters = new Map<() => void, NodeJS.Timeout>();
	private attempts: DeliveryAttempt[] = [];
	private faults: DeliveryFaults = {};
	/** bumped by reset/close so late completions of aborted sends are ignored */
	private generation = 0;
	private closed = false;
	private readonly httpAgent = new http.Agent({ keepAlive: false });
	// Loopback receivers in tests use self-signed certificates.
	private readonly httpsAgent = new https.Agent({ keepAlive: false, rejectUnauthorized: false });

	constructor(
		private readonly options: Required<DeliveryOptions>,
		private readonly dice: Prng,
		private readonly ids: Prng,
		private readonly subscriptions: ReadonlyMap<string, Subscription>,
		/** event timestamps as the service writes them (personality) */
		private readonly eventTimestamp: () => string = isoNow,
	) {}

	/** Queues one delivery per subscription of `topic`; returns at once. */
	emit(topic: LeadTopic, leadId: string): void {
		if (this.closed) return;
		const timestamp = this.eventTimestamp();
		let queued = 0;
		for (const sub of this.subscriptions.values()) {
			if (sub.topic !== topic) continue;
			const { rawBody, headers } = signedDelivery(sub.signingSecret, leadId, topic, timestamp);
			this.pending.push({
				deliveryId: 'dlv_' + this.ids.hex(24),
				subscriptionId: sub.id,
				url: sub.url,
				topic,
				leadId,
				timestamp,
				rawBody,
				headers,
				attempt: 0,
				duplicate: false,
			});
			queued++;
		}
		if (queued > 0) this.schedulePump();
	}

	setFaults(faults: DeliveryFaults): void {
		const rate = faults.duplicateRate;
		if (rate !== undefined && (typeof rate !== 'number' || rate < 0 || rate > 1)) {
			throw new Error(`duplicateRate must be a share between 0 and 1 (got ${String(rate)})`);
		}
		this.faults = { ...faults };
	}

	attemptsLog(): DeliveryAttempt[] {
		return this.attempts.map((a) => ({ ...a, headers: { ...a.headers } }));
	}

	isIdle(): boolean {
		return (
			this.pending.length === 0 &&
			this.inFlight === 0 &&
			this.retryTimers.size === 0 &&
			this.pumpTimer === null
		);
	}

	describe(): string {
		return `${this.pending.length} pending, ${this.inFlight} in flight, ${this.retryTimers.size} waiting to retry`;
	}

	/** Resolves when nothing is pending, in flight or waiting to retry; rejects after `timeoutMs`. */
	waitForIdle(timeoutMs = 10_000): Promise<void> {
		if (this.isIdle() || this.closed) return Promise.resolve();
		return new Promise((resolve, reject) => {
			const waiter = () => resolve();
			const timer = setTimeout(() => {
				this.waiters.delete(waiter);
				reject(
					new Error(
						`waitForDeliveries: deliveries still busy after ${timeoutMs} ms (${this.describe()})`,
					),
				);
			}, timeoutMs);
			this.waiters.set(waiter, timer);
		});
	}

	/** Drops queued and retrying deliveries, aborts those in flight, forgets the log and faults. */
	reset(): void {
		this.generation++;
		this.pending = [];
		for (const timer of this.retryTimers) clearTimeout(timer);
		this.retryTimers.clear();
		for (const controller of this.controllers) controller.abort(new Error('simulator reset'));
		this.controllers.clear();
		this.attempts = [];
		this.faults = {};
		this.notifyIfIdle();
	}

	close(): void {
		this.closed = true;
		this.reset();
		if (this.pumpTimer) clearImmediate(this.pumpTimer);
		this.pumpTimer = null;
		this.httpAgent.destroy();
		this.httpsAgent.destroy();
		for (const [waiter, timer] of this.waiters) {
			clearTimeout(timer);
			waiter();
		}
		this.waiters.clear();
	}

	private notifyIfIdle(): void {
		if (!this.isIdle()) return;
		for (const [waiter, timer] of this.waiters) {
			clearTimeout(timer);
			waiter();
		}
		this.waiters.clear();
	}

	// Deferred so events emitted together are queued together (reorder can shuffle them).
	private schedulePump(): void {
		if (this.pumpTimer || this.closed) return;
		this.pumpTimer = setImmediate(() => {
			this.pumpTimer = null;
			this.pump();
		});
	}

	private pump(): void {
		while (!this.closed && this.inFlight < this.options.concurrency && this.pending.length > 0) {
			const index = this.faults.reorder ? this.dice.int(this.pending.length) : 0;
			const [job] = this.pending.splice(index, 1);
			// A deleted subscription (or revoked key) gets no more deliveries.
			if (!this.subscriptions.has(job.subscriptionId)) continue;
			this.inFlight++;
			const generation = this.generation;
			void this.send(job, generation).finally(() => {
				this.inFlight--;
				this.pump();
			});
		}
		this.notifyIfIdle();
	}

	private async send(job: Job, generation: number): Promise<void> {
		job.attempt++;
		const sentAt = isoNow();
		const outcome: Outcome = this.faults.unreachable
			? { error: 'receiver unreachable (injected)' }
			: await this.post(job);
		if (generation !== this.generation) return;
		const acknowledged = outcome.status === 200;
		this.attempts.push({
			deliveryId: job.deliveryId,
			subscriptionId: job.subscriptionId,
			url: job.url,
			topic: job.topic,
			leadId: job.leadId,
			timestamp: job.timestamp,
			attempt: job.attempt,
			duplicate: job.duplicate,
			rawBody: job.rawBody,
			headers: { ...job.headers },
			status: outcome.status,
			error: outcome.error,
			acknowledged,
			sentAt,
			answeredAt: isoNow(),
		});
		if (acknowledged) {
			// At-least-once: now and then the same bytes arrive again.
			if (!job.duplicate && this.dice.chance(this.faults.duplicateRate))
				this.pending.push({ ...job, duplicate: true });
			return;
		}
		if (job.duplicate || outcome.final || job.attempt >= this.options.maxAttempts) return;
		const delay = this.options.retryDelaysMs[job.attempt - 1] ?? this.options.baseDelayMs;
		const timer = setTimeout(() => {
			this.retryTimers.delete(timer);
			if (generation !== this.generation) return;
			this.pending.push(job);
			this.pump();
		}, delay);
		this.retryTimers.add(timer);
	}

	private post(job: Job): Promise<Outcome> {
		let url: URL;
		try {
			url = new URL(job.url);
		} catch {
			return Promise.resolve({ error: 'invalid receiver URL', final: true });
		}
		if (!isLoopbackHostname(url.hostname)) {
			return Promise.resolve({
				error:
					'not sent: the simulator only delivers to loopback addresses (127.0.0.1, localhost, [::1])',
				final: true,
			});
		}
		return new Promise((resolve) => {
			const controller = new AbortController();
			this.controllers.add(controller);
			let settled = false;
			const settle = (outcome: Outcome) => {
				if (settled) return;
				settled = true;
				resolve(outcome);
			};
			const cleanup = () => {
				clearTimeout(timer);
				this.controllers.delete(controller);
			};
			const timeoutMs = this.options.timeoutMs;
			const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
			const secure = url.protocol === 'https:';
			const request = (secure ? https : http).request(url, {
				method: 'POST',
				headers: job.headers,
				agent: secure ? this.httpsAgent : this.httpAgent,
				signal: controller.signal,
			});
			request.on('response', (response) => {
				settle({ status: response.statusCode });
				response.on('error', () => undefined);
				response.on('close', cleanup);
				response.resume();
			});
			request.on('error', (error) => {
				cleanup();
				const reason = controller.signal.reason as Error | undefined;
				const aborted = controller.signal.aborted;
				settle({
					error:
						aborted && reason?.message === 'timeout'
							? `no answer within ${timeoutMs} ms`
							: aborted
								? (reason?.message ?? 'aborted')
								: error.message,
				});
			});
			request.end(job.rawBody);
		});
	}
}
