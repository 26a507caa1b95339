/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The bench's latency proxy (bench/n8n-app): TLS a client can verify with the run's own CA,
 * bytes passed intact both ways, and the delay it claims added to each direction, before TLS
 * (a new connection pays its handshake, a kept-alive one does not). The delay checks are lower
 * bounds on a delay the proxy itself inserts, so a slow machine cannot make them fail.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import { startLatencyProxy, type LatencyProxy } from '../../bench/n8n-app/latency-proxy';
import { makeCertificates, type Certificates } from '../../bench/n8n-app/self-signed-ca';

const DELAY_MS = 40;
// Node's timers count whole milliseconds; allow each delayed leg to land up to 2 ms early.
const TIMER_SLACK_MS = 2;

let certificates: Certificates;
let upstream: http.Server;
let upstreamPort: number;
const proxies: LatencyProxy[] = [];
const agents: https.Agent[] = [];

beforeAll(async () => {
	certificates = makeCertificates();
	upstream = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const body = Buffer.concat(chunks);
			response.setHeader('content-type', 'application/octet-stream');
			response.setHeader('x-method', request.method ?? '');
			response.setHeader('x-authorization', request.headers.authorization ?? '');
			response.end(body);
		});
	});
	await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
	upstreamPort = (upstream.address() as AddressInfo).port;
});

afterAll(async () => {
	for (const agent of agents) agent.destroy();
	await Promise.all(proxies.map((proxy) => proxy.close()));
	await new Promise<void>((resolve) => upstream.close(() => resolve()));
	certificates.remove();
});

async function proxy(delayMs: number): Promise<LatencyProxy> {
	const started = await startLatencyProxy({
		upstreamPort,
		delayMs,
		key: certificates.key,
		cert: certificates.cert,
	});
	proxies.push(started);
	return started;
}

function keepAliveAgent(ca: string | undefined): https.Agent {
	const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
	agents.push(agent);
	return agent;
}

interface Answer {
	status: number;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
	elapsedMs: number;
}

function post(url: string, agent: https.Agent, body: Buffer): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const request = https.request(
			`${url}/leads`,
			{
				method: 'POST',
				agent,
				headers: { authorization: 'Bearer t', 'content-length': body.length },
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode ?? 0,
						headers: response.headers,
						body: Buffer.concat(chunks),
						elapsedMs: performance.now() - started,
					}),
				);
			},
		);
		request.on('error', reject);
		request.end(body);
	});
}

describe('bench latency proxy', () => {
	it('serves TLS with the run-time CA and passes a large body intact both ways', async () => {
		const server = await proxy(0);
		const body = Buffer.from(Array.from({ length: 300_000 }, (_, n) => n % 251));
		const answer = await post(server.url, keepAliveAgent(certificates.ca), body);
		expect(answer.status).toBe(200);
		expect(answer.headers['x-method']).toBe('POST');
		expect(answer.headers['x-authorization']).toBe('Bearer t');
		expect(answer.body.equals(body)).toBe(true);
	});

	it('is refused by a client that does not trust the run-time CA', async () => {
		const server = await proxy(0);
		await expect(post(server.url, keepAliveAgent(undefined), Buffer.from('x'))).rejects.toThrow(
			/self[- ]signed|unable to (get|verify)/i,
		);
	});

	it('adds its delay each way, before TLS: a new connection pays the handshake, a reused one does not', async () => {
		const server = await proxy(DELAY_MS);
		const agent = keepAliveAgent(certificates.ca);

		const first = await post(server.url, agent, Buffer.from('first'));
		expect(first.body.toString()).toBe('first');
		expect(server.handshakes()).toBe(1);
		// TLS 1.3: ClientHello →, ← server flight, request →, ← response: four delayed legs
		expect(first.elapsedMs).toBeGreaterThanOrEqual(4 * (DELAY_MS - TIMER_SLACK_MS));

		const second = await post(server.url, agent, Buffer.from('second'));
		expect(second.body.toString()).toBe('second');
		expect(server.handshakes()).toBe(1);
		expect(second.elapsedMs).toBeGreaterThanOrEqual(2 * (DELAY_MS - TIMER_SLACK_MS));

		const other = await post(server.url, keepAliveAgent(certificates.ca), Buffer.from('other'));
		expect(other.body.toString()).toBe('other');
		expect(server.handshakes()).toBe(2);
	});
});
