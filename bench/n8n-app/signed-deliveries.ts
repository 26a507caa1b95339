/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
import { createHmac } from 'node:crypto';
import http from 'node:http';

/**
 * Sends `count` deliveries as the service signs them (v2 HMAC over the body), `inFlight` at a
 * time over kept-alive connections; `bodyAt` gives each body when it is sent. Returns the bodies
 * not answered 200.
 */
export async function postSigned(
	url: string,
	secret: string,
	count: number,
	inFlight: number,
	bodyAt: (index: number) => string,
): Promise<string[]> {
	const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
	let next = 0;
	const refused: string[] = [];
	const one = (body: string) =>
		new Promise<number>((resolve, reject) => {
			const signature = createHmac('sha256', secret).update(body).digest('hex');
			const request = http.request(url, {
				method: 'POST',
				agent,
				headers: { 'content-type': 'application/json', 'x-svc-signature-v2': signature },
			});
			request.on('response', (response) => {
				response.resume();
				response.on('end', () => resolve(response.statusCode ?? 0));
			});
			request.on('error', reject);
			request.end(body);
		});
	const worker = async () => {
		while (next < count) {
			const body = bodyAt(next++);
			if ((await one(body)) !== 200) refused.push(body);
		}
	};
	await Promise.all(Array.from({ length: inFlight }, worker));
	agent.destroy();
	return refused;
}
