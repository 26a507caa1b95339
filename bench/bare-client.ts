/**
 * The baseline client: undici with a keep-alive pool, no n8n. It sends the same requests
 * as the node (same bodies, same headers that matter), reads and parses every answer as
 * the node does, and fetches its own bearer token once.
 */
import type { Dispatcher } from 'undici';
import { Agent, Pool } from 'undici';

import type { SimInfo } from './sim';

export interface BareClientOptions {
	/** sockets kept open to the service (requests in flight at most) */
	connections: number;
	/** true: a new TCP connection per request, as n8n's HTTP helper does (diagnostic only) */
	noKeepAlive?: boolean;
}

export class BareClient {
	private readonly dispatcher: Dispatcher;

	private readonly origin: string;

	private readonly basePath: string;

	private token = '';

	constructor(
		private readonly sim: SimInfo,
		options: BareClientOptions,
	) {
		const api = new URL(sim.url);
		this.origin = api.origin;
		this.basePath = `${api.pathname.replace(/\/$/, '')}/1.0/api/company/${encodeURIComponent(sim.companyId)}`;
		this.dispatcher = options.noKeepAlive
			? new Agent({ connections: options.connections, pipelining: 0 })
			: new Pool(this.origin, { connections: options.connections });
	}

	private async send(
		method: 'GET' | 'POST',
		url: URL | string,
		body?: unknown,
		auth = true,
	): Promise<{ status: number; json: unknown }> {
		const target = new URL(url, this.origin);
		const headers: Record<string, string> = { accept: 'application/json' };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (auth) headers.authorization = `Bearer ${this.token}`;
		const response = await this.dispatcher.request({
			origin: target.origin,
			method,
			path: target.pathname + target.search,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.body.text();
		return { status: response.statusCode, json: text ? (JSON.parse(text) as unknown) : undefined };
	}

	/** The bearer token of the last exchange. */
	get bearer(): string {
		return this.token;
	}

	/** One client-credentials exchange, as the credential does it. */
	async fetchToken(): Promise<void> {
		const { status, json } = await this.send(
			'POST',
			`${this.sim.authUrl}/oauth/token`,
			{
				grant_type: 'client_credentials',
				client_id: this.sim.clientId,
				client_secret: this.sim.clientSecret,
				audience: this.sim.url,
			},
			false,
		);
		const token = (json as { access_token?: unknown } | undefined)?.access_token;
		if (status !== 200 || typeof token !== 'string')
			throw new Error(`bare client: token request answered ${status}`);
		this.token = token;
	}

	async createLead(body: object): Promise<unknown> {
		const { status, json } = await this.send('POST', `${this.basePath}/leads`, body);
		if (status !== 201)
			throw new Error(
				`bare client: create answered ${status}: ${JSON.stringify(json).slice(0, 200)}`,
			);
		return (json as { data?: unknown }).data;
	}

	/** Sends every body with at most `inFlight` requests at a time; returns the created leads in order. */
	async createAll(bodies: readonly object[], inFlight: number): Promise<unknown[]> {
		const results = new Array<unknown>(bodies.length);
		let next = 0;
		const worker = async () => {
			while (next < bodies.length) {
				const index = next++;
				results[index] = await this.createLead(bodies[index]);
			}
		};
		await Promise.all(Array.from({ length: Math.max(1, inFlight) }, worker));
		return results;
	}

	async close(): Promise<void> {
		await this.dispatcher.close();
	}
}
