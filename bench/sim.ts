/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The simulator in its own process (its CLI), driven through its HTTP control API, so the
 * client side under test and the service never share an event loop. Both sides of every
 * comparison talk to the same instance, reset in between.
 */
import type { ChildProcess } from 'node:child_process';

import { Pool } from 'undici';

import type {
	DeliveryAttempt,
	RequestStats,
	RouteFaults,
	Simulator,
} from '../test/simulator/types';
import { spawnTs, stderrOf, stopChild, withTimeout } from './processes';

/** What the CLI prints with --json. */
export interface SimInfo {
	url: string;
	devUrl: string;
	authUrl: string;
	companyId: string;
	clientId: string;
	clientSecret: string;
	controlUrl: string;
	partnerOrganizationId: string;
	agentIds: string[];
}

export class RemoteSimulator {
	readonly origin: string;

	private readonly control: Pool;

	private constructor(
		readonly info: SimInfo,
		private readonly child?: ChildProcess,
	) {
		this.origin = new URL(info.controlUrl).origin;
		this.control = new Pool(this.origin, { connections: 2 });
	}

	/**
	 * Starts `test/simulator/cli.ts` on a free loopback port and reads its --json line;
	 * `listPageCap` caps the pages of GET /leads (the default personality otherwise).
	 */
	static async start(
		seed = 8,
		listPageCap?: number,
		extraArgs: string[] = ['--delivery-base-delay', '10'],
	): Promise<RemoteSimulator> {
		const capped = listPageCap === undefined ? [] : ['--list-page-cap', String(listPageCap)];
		const child = spawnTs('test/simulator/cli.ts', [
			...capped,
			...extraArgs,
			'--port',
			'0',
			'--host',
			'127.0.0.1',
			'--json',
			'--allow-insecure-loopback-webhooks',
			'--seed',
			String(seed),
		]);
		const stderr = stderrOf(child);
		const line = new Promise<string>((resolve, reject) => {
			let buffered = '';
			child.stdout?.setEncoding('utf8');
			child.stdout?.on('data', (chunk: string) => {
				buffered += chunk;
				const end = buffered.indexOf('\n');
				if (end >= 0) resolve(buffered.slice(0, end));
			});
			child.once('exit', (code) =>
				reject(new Error(`the simulator exited (${String(code)}): ${stderr()}`)),
			);
		});
		try {
			const info = JSON.parse(await withTimeout(line, 60_000, 'starting the simulator')) as SimInfo;
			return new RemoteSimulator(info, child);
		} catch (error) {
			await stopChild(child);
			throw error;
		}
	}

	/** A simulator started by another process (a child of the bench reuses the runner's). */
	static attach(info: SimInfo): RemoteSimulator {
		return new RemoteSimulator(info);
	}

	/**
	 * The address fields the n8n harness reads to fill the credential
	 * (`simulatorCredentialData`); the in-process control object does not exist here.
	 */
	addresses(): Simulator {
		const { info } = this;
		const addresses: Pick<
			Simulator,
			'url' | 'devUrl' | 'authUrl' | 'companyId' | 'defaultKey' | 'origin' | 'controlUrl'
		> = {
			url: info.url,
			devUrl: info.devUrl,
			authUrl: info.authUrl,
			companyId: info.companyId,
			origin: this.origin,
			controlUrl: info.controlUrl,
			defaultKey: {
				clientId: info.clientId,
				clientSecret: info.clientSecret,
				selfServe: true,
				revoked: false,
			},
		};
		return addresses as Simulator;
	}

	private async call<T>(
		method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
		path: string,
		body?: unknown,
	): Promise<T> {
		const response = await this.control.request({
			method,
			path: `/__control${path}`,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.body.text();
		if (response.statusCode >= 300)
			throw new Error(
				`simulator control ${method} ${path}: HTTP ${response.statusCode} ${text.slice(0, 300)}`,
			);
		return (JSON.parse(text) as { data: T }).data;
	}

	/** Data, keys, subscriptions, faults and stats back to the start state. */
	async reset(): Promise<void> {
		await this.call('POST', '/reset');
	}

	async stats(): Promise<RequestStats> {
		return await this.call<RequestStats>('GET', '/stats');
	}

	async resetStats(): Promise<void> {
		await this.call('DELETE', '/stats');
	}

	/** `count` leads, created and last changed now or at `changedAt` (an ISO time). */
	async seedLeads(count: number, changedAt?: string): Promise<string[]> {
		const leads = changedAt
			? {
					leads: Array.from({ length: count }, () => ({
						createdAt: changedAt,
						updatedAt: changedAt,
					})),
				}
			: { count };
		return (await this.call<{ ids: string[] }>('POST', '/leads/seed', { ...leads, summary: true }))
			.ids;
	}

	/** A lead created in the portal (not through the API); returns its id. */
	async portalCreateLead(fields: Record<string, unknown>): Promise<string> {
		return (await this.call<{ id: string }>('POST', '/portal/leads', fields)).id;
	}

	/** A change in the portal (emits lead/update to the subscriptions). */
	async portalUpdateLead(id: string, patch: Record<string, unknown>): Promise<void> {
		await this.call('PATCH', `/portal/leads/${encodeURIComponent(id)}`, patch);
	}

	/** How the service's own deliveries fail (`{ unreachable: true }`: none reaches n8n). */
	async setDeliveryFaults(faults: Record<string, unknown>): Promise<void> {
		await this.call('PUT', '/delivery-faults', faults);
	}

	async setFaults(route: string, faults: RouteFaults | null): Promise<void> {
		await this.call('PUT', '/faults', { route, faults });
	}

	/** A token bucket per API key (429 with Retry-After past it); null lifts it. Setting it refills the bucket. */
	async setRateLimit(requestsPerSecond: number | null): Promise<void> {
		await this.call('PUT', '/rate-limit', { requestsPerSecond });
	}

	async leadCount(): Promise<number> {
		return (await this.call<unknown[]>('GET', '/leads')).length;
	}

	/** The signing secret the service holds for the subscription to `url` on `topic`. */
	async signingSecret(url: string, topic: string): Promise<string | undefined> {
		const subscriptions = await this.call<
			Array<{ url: string; topic: string; signingSecret: string }>
		>('GET', '/subscriptions');
		return subscriptions.find(
			(subscription) => subscription.url === url && subscription.topic === topic,
		)?.signingSecret;
	}

	/** Every delivery attempt the service made so far. */
	async deliveries(): Promise<DeliveryAttempt[]> {
		return await this.call<DeliveryAttempt[]>('GET', '/deliveries');
	}

	/** Waits until no delivery is pending or waiting to be retried. */
	async waitForDeliveries(timeoutMs: number): Promise<void> {
		await this.call('POST', '/deliveries/wait', { timeoutMs });
	}

	async subscriptionCount(): Promise<number> {
		return (await this.call<unknown[]>('GET', '/subscriptions')).length;
	}

	async close(): Promise<void> {
		await this.control.close();
		if (this.child) await stopChild(this.child);
	}
}

/** One route's count in a stats snapshot. */
export function routeCount(stats: RequestStats, route: string): number {
	return stats.byRoute[route] ?? 0;
}

export function statusCount(stats: RequestStats, route: string, status: number): number {
	return stats.statusesByRoute[route]?.[status] ?? 0;
}
