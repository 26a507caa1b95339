/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of the simulator. It records every request line and can
 * rewrite answers, to show the node what a service that answers differently would send
 * (e.g. an empty PATCH answer, which the simulator itself never gives).
 */
export interface RecordingProxy {
	origin: string;
	requests: Array<{ method: string; url: string }>;
	/** the most requests that were in flight through the proxy at one time */
	maxInFlight(): number;
	/**
	 * Round trips one after the other: the longest chain of requests each sent after the one
	 * before it was answered (a client that waits for every answer: one per request).
	 */
	sequentialRounds(): number;
	close(): Promise<void>;
}

export type AnswerRewrite = (
	request: { method: string; url: string },
	status: number,
	body: string,
) => { status: number; body: string } | undefined;

export async function startRecordingProxy(
	target: string,
	rewrite?: AnswerRewrite,
): Promise<RecordingProxy> {
	const targetUrl = new URL(target);
	const requests: RecordingProxy['requests'] = [];
	let inFlight = 0;
	let maxInFlight = 0;
	// the longest chain among the requests answered so far
	let longestAnswered = 0;
	const server = http.createServer((incoming, outgoing) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			const method = incoming.method ?? 'GET';
			const url = incoming.url ?? '/';
			requests.push({ method, url });
			inFlight++;
			maxInFlight = Math.max(maxInFlight, inFlight);
			const chain = longestAnswered + 1;
			outgoing.on('close', () => {
				inFlight--;
				longestAnswered = Math.max(longestAnswered, chain);
			});
			const headers = { ...incoming.headers, host: targetUrl.host };
			const forward = http.request(
				{ host: targetUrl.hostname, port: targetUrl.port, method, path: url, headers },
				(answer) => {
					const answerChunks: Buffer[] = [];
					answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
					answer.on('end', () => {
						const body = Buffer.concat(answerChunks).toString('utf8');
						const changed = rewrite?.({ method, url }, answer.statusCode ?? 502, body);
						const finalBody = changed?.body ?? body;
						const finalHeaders = {
							...answer.headers,
							'content-length': String(Buffer.byteLength(finalBody)),
						};
						if (changed && changed.body === '') delete finalHeaders['content-type'];
						outgoing.writeHead(changed?.status ?? answer.statusCode ?? 502, finalHeaders);
						outgoing.end(finalBody);
					});
				},
			);
			forward.on('error', () => {
				outgoing.writeHead(502);
				outgoing.end();
			});
			forward.end(Buffer.concat(chunks));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		origin: `http://127.0.0.1:${port}`,
		requests,
		maxInFlight: () => maxInFlight,
		sequentialRounds: () => longestAnswered,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
