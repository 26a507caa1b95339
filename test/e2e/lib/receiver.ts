/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** A loopback HTTP receiver standing in for "your system" in the example workflows: records every request. */
import http from 'node:http';

export interface ReceivedRequest {
	method: string;
	path: string;
	body: unknown;
}

export interface Receiver {
	url: string;
	received: ReceivedRequest[];
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
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
			received.push({ method: request.method ?? '', path: request.url ?? '', body });
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
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
