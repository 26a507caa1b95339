/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What the distance alone allows: a bare keep-alive HTTPS client through the latency proxy to
 * an upstream that answers at once, sequential vs 8 in flight, at 0 ms and 25 ms each way.
 * The ceiling any node's "Parallel Requests 8 vs sequential" ratio can be judged against.
 *   npx ts-node --transpile-only bench/n8n-app/distance-floor.ts [runs] [requests]
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

import { startLatencyProxy } from './latency-proxy';
import { makeCertificates } from './self-signed-ca';

function get(url: string, agent: https.Agent): Promise<void> {
	return new Promise((resolve, reject) => {
		https
			.get(url, { agent }, (response) => {
				response.resume();
				response.on('end', resolve);
			})
			.on('error', reject);
	});
}

async function perRequestMs(
	url: string,
	requests: number,
	inFlight: number,
	ca: string,
): Promise<number> {
	const agent = new https.Agent({ keepAlive: true, maxSockets: inFlight, ca });
	let next = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < requests) {
			next += 1;
			await get(`${url}/leads`, agent);
		}
	};
	await Promise.all(Array.from({ length: inFlight }, worker));
	agent.destroy();
	return (performance.now() - started) / requests;
}

const spread = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const fmt = (v: number) => v.toFixed(2);
	return `${fmt(sorted[0])} / ${fmt(sorted[Math.floor(sorted.length / 2)])} / ${fmt(sorted[sorted.length - 1])}`;
};

async function main(): Promise<void> {
	const runs = Number(process.argv[2] ?? 5);
	const requests = Number(process.argv[3] ?? 64);
	const certificates = makeCertificates();
	const upstream = http.createServer((_request, response) => response.end('{"id":"x"}'));
	await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
	const upstreamPort = (upstream.address() as AddressInfo).port;
	try {
		for (const delayMs of [0, 25]) {
			const proxy = await startLatencyProxy({
				upstreamPort,
				delayMs,
				key: certificates.key,
				cert: certificates.cert,
			});
			const sequential: number[] = [];
			const parallel: number[] = [];
			const ratios: number[] = [];
			for (let run = 0; run < runs; run++) {
				// alternate which side goes first so warm-up and drift do not favour one
				const order = run % 2 === 0 ? [1, 8] : [8, 1];
				const result: Record<number, number> = {};
				for (const inFlight of order)
					result[inFlight] = await perRequestMs(proxy.url, requests, inFlight, certificates.ca);
				sequential.push(result[1]);
				parallel.push(result[8]);
				ratios.push(result[1] / result[8]);
			}
			process.stdout.write(
				`delay ${delayMs} ms each way, ${runs} runs x ${requests} requests (min / median / max), load ${os
					.loadavg()
					.map((l) => l.toFixed(2))
					.join(' ')}\n` +
					`  sequential ms/request      ${spread(sequential)}\n` +
					`  8 in flight ms/request     ${spread(parallel)}\n` +
					`  speed-up 8 vs sequential   ${spread(ratios)}`,
			);
			await proxy.close();
		}
	} finally {
		await new Promise<void>((resolve) => upstream.close(() => resolve()));
		certificates.remove();
	}
}

void main().catch((error: unknown) => {
	process.stderr.write(`${String(error)}\n`);
	process.exitCode = 1;
});
