/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** A loopback HTTP receiver standing in for "your system" in the example workflows: records every request. */
import http from 'node:http';

export interface ReceivedRequest {
	method: string;
	path: string;
	body: unknown;
	headers: http.IncomingHttpHeaders;
}

export interface Receiver {
	url: string;
	received: ReceivedRequest[];
	close(): Promise<void>;
}

/**
 * Records every request; answers 200, or the status `statusFor` gives (a system refusing some),
 * after `delayMs` (a slow system: executions stay under way a while).
 */
export async function startReceiver(
	statusFor: (request: ReceivedRequest) => number = () => 200,
	{ delayMs = 0 }: { delayMs?: number } = {},
): Promise<Receiver> {
	const received: ReceivedRequest[] = [];
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: unknown = text;
			try {
				body = JSON.parse(text);
			} catch {
				// not JSON: kept as text
			}
			const entry = {
				method: request.method ?? '',
				path: request.url ?? '',
				body,
				headers: request.headers,
			};
			received.push(entry);
			const status = statusFor(entry);
			const answer = () =>
				response
					.writeHead(status, { 'content-type': 'application/json' })
					.end(status === 200 ? '{"ok":true}' : '{"error":"refused"}');
			if (delayMs > 0) setTimeout(answer, delayMs);
			else answer();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return {
		url: `http://127.0.0.1:${port}`,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
