/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The webhook load generator of case 4, in its own process (forked with IPC), so the
 * receiver under test has a core of its own. It signs deliveries exactly as the simulator
 * does (`signedDelivery`) and POSTs their raw bytes with an undici pool, `concurrency`
 * requests in flight.
 *
 * Messages: parent → { type: 'prepare', ...LoadPlan } → child → { type: 'prepared' };
 *           parent → { type: 'go' } → child → { type: 'done', result: LoadResult };
 *           parent → { type: 'exit' }.
 */
import { randomBytes } from 'node:crypto';

import { Pool } from 'undici';

import { signedDelivery } from '../test/simulator/deliveries';
import type { LeadTopic } from '../test/simulator/types';

export interface LoadPlan {
	url: string;
	secret: string;
	topic: LeadTopic;
	count: number;
	concurrency: number;
	/** lead ids to deliver events for (cycled); random ids when absent */
	leadIds?: string[];
}

export interface LoadResult {
	/** first request sent to last answer read, in this process */
	elapsedMs: number;
	statuses: Record<number, number>;
	errors: number;
	firstError?: string;
}

export type ParentMessage = ({ type: 'prepare' } & LoadPlan) | { type: 'go' } | { type: 'exit' };

export type ChildMessage =
	| { type: 'prepared' }
	| { type: 'done'; result: LoadResult }
	| { type: 'failed'; error: string };

interface Prepared {
	plan: LoadPlan;
	pool: Pool;
	path: string;
	deliveries: Array<{ body: string; headers: Record<string, string> }>;
}

/**
 * Distinct events: a distinct timestamp each, so none is a duplicate of another; all within
 * the last hour, inside the trigger's Maximum Event Age.
 */
function prepare(plan: LoadPlan): Prepared {
	const url = new URL(plan.url);
	const start = Date.now() - 3_600_000 + Math.floor(Math.random() * 1e6);
	const deliveries = Array.from({ length: plan.count }, (_, index) => {
		const id = plan.leadIds?.length
			? plan.leadIds[index % plan.leadIds.length]
			: randomBytes(12).toString('hex');
		const { rawBody, headers } = signedDelivery(
			plan.secret,
			id,
			plan.topic,
			new Date(start + index).toISOString(),
		);
		const sendable = { ...headers };
		delete sendable['content-length'];
		return { body: rawBody, headers: sendable };
	});
	return {
		plan,
		pool: new Pool(url.origin, { connections: plan.concurrency }),
		path: url.pathname + url.search,
		deliveries,
	};
}

async function run(prepared: Prepared): Promise<LoadResult> {
	const { pool, path, deliveries, plan } = prepared;
	const statuses: Record<number, number> = {};
	let errors = 0;
	let firstError: string | undefined;
	let next = 0;
	const worker = async () => {
		while (next < deliveries.length) {
			const delivery = deliveries[next++];
			try {
				const response = await pool.request({
					method: 'POST',
					path,
					headers: delivery.headers,
					body: delivery.body,
				});
				await response.body.dump();
				statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
			} catch (error) {
				errors++;
				firstError ??= error instanceof Error ? error.message : String(error);
			}
		}
	};
	const start = performance.now();
	await Promise.all(Array.from({ length: plan.concurrency }, worker));
	return { elapsedMs: performance.now() - start, statuses, errors, firstError };
}

function send(message: ChildMessage): void {
	process.send?.(message);
}

let prepared: Prepared | undefined;

process.on('message', (message: ParentMessage) => {
	void (async () => {
		try {
			if (message.type === 'prepare') {
				await prepared?.pool.close();
				prepared = prepare(message);
				send({ type: 'prepared' });
			} else if (message.type === 'go') {
				if (!prepared) throw new Error('go before prepare');
				send({ type: 'done', result: await run(prepared) });
			} else {
				await prepared?.pool.close();
				process.exit(0);
			}
		} catch (error) {
			send({
				type: 'failed',
				error: error instanceof Error ? (error.stack ?? error.message) : String(error),
			});
		}
	})();
});

process.on('disconnect', () => process.exit(0));
