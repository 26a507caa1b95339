/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ApiKey, Environment, Simulator } from './types';

/** Real HTTP over loopback with Node's fetch; every body is read (JSON when possible). */

export interface Answer {
	status: number;
	headers: Headers;
	text: string;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
}

export async function send(
	url: string,
	init: {
		method?: string;
		headers?: Record<string, string>;
		body?: unknown;
		rawBody?: string;
	} = {},
): Promise<Answer> {
	const headers: Record<string, string> = { ...init.headers };
	let payload: string | undefined = init.rawBody;
	if (init.body !== undefined) {
		payload = JSON.stringify(init.body);
		headers['content-type'] ??= 'application/json';
	}
	const response = await fetch(url, { method: init.method ?? 'GET', headers, body: payload });
	const text = await response.text();
	let body: unknown = undefined;
	try {
		body = text ? JSON.parse(text) : undefined;
	} catch {
		body = undefined;
	}
	return { status: response.status, headers: response.headers, text, body };
}

export function baseOf(sim: Simulator, environment: Environment = 'production'): string {
	return environment === 'production' ? sim.url : sim.devUrl;
}

/** The answer to a client-credentials token request, as the CLI's --json line names things. */
export async function requestToken(values: {
	authUrl: string;
	url: string;
	clientId: string;
	clientSecret: string;
}) {
	return await send(`${values.authUrl}/oauth/token`, {
		method: 'POST',
		body: {
			grant_type: 'client_credentials',
			client_id: values.clientId,
			client_secret: values.clientSecret,
			audience: values.url,
		},
	});
}

export async function tokenFor(
	sim: Simulator,
	key: ApiKey = sim.defaultKey,
	environment: Environment = 'production',
): Promise<string> {
	const answer = await requestToken({
		authUrl: sim.authUrl,
		url: baseOf(sim, environment),
		...key,
	});
	if (answer.status !== 200)
		throw new Error(`token request failed: ${answer.status} ${answer.text}`);
	return answer.body.access_token as string;
}

/** A client for one simulator, key and environment. `path` is relative to `{base}/1.0/api/company/{companyId}`. */
export function apiClient(sim: Simulator, token: string, environment: Environment = 'production') {
	const base = baseOf(sim, environment);
	const auth = { authorization: `Bearer ${token}` };
	return {
		api: (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
			send(`${base}/1.0/api/company/${sim.companyId}${path}`, {
				method,
				body,
				headers: { ...auth, ...headers },
			}),
		webhooks: (method: string, path = '', body?: unknown) =>
			send(`${base}/1.0/webhooks/companies/${sim.companyId}/subscriptions${path}`, {
				method,
				body,
				headers: auth,
			}),
	};
}

/** Asserts the error envelope: status, code, a message matching `message`, and the request id. */
export function expectError(answer: Answer, status: number, code: string, message?: RegExp): void {
	expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
	expect(answer.body.status).toBe(status);
	expect(typeof answer.body.error.message).toBe('string');
	expect(answer.body.error.message.length).toBeGreaterThan(10);
	if (message) expect(answer.body.error.message).toMatch(message);
	expect(answer.body.context.requestId).toBe(answer.headers.get('x-request-id'));
}

/** The `field` of every details entry of an error answer. */
export function detailFields(answer: Answer): string[] {
	return ((answer.body?.error?.details ?? []) as Array<{ field: string }>).map((d) => d.field);
}

/** The message of the details entry for `field` ('' when absent). */
export function detail(answer: Answer, field: string): string {
	const details = (answer.body?.error?.details ?? []) as Array<{ field: string; message: string }>;
	return details.find((d) => d.field === field)?.message ?? '';
}

export function validLead(
	sim: Simulator,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		firstName: 'Ada',
		lastName: 'Lovelace',
		email: 'ada@example.com',
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0].id,
		...extra,
	};
}

export interface Received {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	raw: Buffer;
	at: number;
}

/** What the receiver answers: a status, a status after a delay, or 'hang' (never answer). Called per request, in order. */
export type Responder = (
	request: Received,
	index: number,
) => number | 'hang' | { status: number; delayMs: number };

/** A webhook receiver on 127.0.0.1 that keeps the exact raw bytes of every request. */
export async function startReceiver(responder: Responder = () => 200) {
	const received: Received[] = [];
	let respond = responder;
	let open = 0;
	let maxOpen = 0;
	const held: http.ServerResponse[] = [];
	const server = http.createServer((req, res) => {
		open++;
		maxOpen = Math.max(maxOpen, open);
		res.on('close', () => open--);
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const request: Received = {
				method: req.method ?? '',
				url: req.url ?? '',
				headers: req.headers,
				raw: Buffer.concat(chunks),
				at: Date.now(),
			};
			received.push(request);
			const answer = respond(request, received.length - 1);
			if (answer === 'hang') {
				held.push(res);
				return;
			}
			const { status, delayMs } =
				typeof answer === 'number' ? { status: answer, delayMs: 0 } : answer;
			const reply = () => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
			if (delayMs > 0) setTimeout(reply, delayMs);
			else reply();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		received,
		/** most requests open at the same time */
		maxConcurrent: () => maxOpen,
		setResponder(next: Responder) {
			respond = next;
		},
		/** Answers every request held by 'hang' that is still open. */
		release(status = 200) {
			for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end('ok');
		},
		async waitFor(count: number, timeoutMs = 3000): Promise<Received[]> {
			const deadline = Date.now() + timeoutMs;
			while (received.length < count) {
				if (Date.now() > deadline)
					throw new Error(
						`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`,
					);
				await sleep(5);
			}
			return received;
		},
		close(): Promise<void> {
			return new Promise((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export function hmacHex(secret: string, data: string | Buffer): string {
	return createHmac('sha256', secret).update(data).digest('hex');
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
