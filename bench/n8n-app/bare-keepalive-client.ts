/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The bare keep-alive client: the same token request and lead POSTs as the nodes, straight
 * from Node's http(s) module with a kept-alive agent, no n8n at all. What the distance and
 * the service alone cost. Each measurement gets a fresh agent: a socket left idle between
 * measurements may be closed by the server meanwhile (its keep-alive timeout).
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

type Agent = http.Agent | https.Agent;

function send(
	agent: Agent,
	url: string,
	body: object,
	headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
	const payload = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const request = (url.startsWith('https:') ? https : http).request(
			url,
			{
				method: 'POST',
				agent,
				headers: {
					'content-type': 'application/json',
					'content-length': String(Buffer.byteLength(payload)),
					...headers,
				},
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					resolve({ status: response.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
				});
			},
		);
		request.on('error', reject);
		request.end(payload);
	});
}

export interface BareClientOptions {
	/** the CA of the TLS proxy (https addresses) */
	ca: string;
	tokenUrl: string;
	leadsUrl: string;
	clientId: string;
	clientSecret: string;
	audience: string;
}

export class BareClient {
	private token?: string;

	constructor(private readonly options: BareClientOptions) {}

	private agent(): Agent {
		return this.options.leadsUrl.startsWith('https:')
			? new https.Agent({ keepAlive: true, maxSockets: 16, ca: this.options.ca })
			: new http.Agent({ keepAlive: true, maxSockets: 16 });
	}

	private async accessToken(): Promise<string> {
		if (this.token) return this.token;
		const agent = this.agent();
		const answer = await send(agent, this.options.tokenUrl, {
			grant_type: 'client_credentials',
			client_id: this.options.clientId,
			client_secret: this.options.clientSecret,
			audience: this.options.audience,
		});
		agent.destroy();
		const token = (answer.json as { access_token?: string } | undefined)?.access_token;
		if (!token) throw new Error(`bare client: no token (HTTP ${answer.status})`);
		this.token = token;
		return token;
	}

	/** Creates the leads with `inFlight` requests at a time; returns milliseconds per lead. */
	async createLeads(leads: object[], inFlight: number): Promise<number> {
		const token = await this.accessToken();
		const agent = this.agent();
		let next = 0;
		const started = performance.now();
		const worker = async () => {
			while (next < leads.length) {
				const lead = leads[next++];
				const answer = await send(agent, this.options.leadsUrl, lead, {
					authorization: `Bearer ${token}`,
				});
				if (answer.status !== 201 && answer.status !== 200)
					throw new Error(`bare client: create answered ${answer.status}`);
			}
		};
		try {
			await Promise.all(Array.from({ length: inFlight }, worker));
		} finally {
			agent.destroy();
		}
		return (performance.now() - started) / leads.length;
	}
}
