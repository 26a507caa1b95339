/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Case 4: verified webhook deliveries per second through the trigger's webhook handler
 * (test/harness/webhooks.ts: express + n8n-core's WebhookContext, one execution started per
 * accepted delivery, as n8n does) against a bare node:http server that only checks the same
 * HMAC and answers 200. Both receivers run in this process; the load generator runs in its
 * own, with the same plan (count, concurrency, signed raw bodies) for both.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeParameters } from 'n8n-workflow';

import { TriggerHost } from '../../test/harness/webhooks';
import type { LeadTopic } from '../../test/simulator/types';
import type { ChildMessage, LoadPlan, LoadResult, ParentMessage } from '../load-generator';
import { median, nowMs, perSecond, ratio } from '../measure';
import { freshHarness } from '../n8n';
import { WebhookFloorHarness } from '../what-if';
import { forkTs, stderrOf, stopChild, withTimeout } from '../processes';
import type { CaseResult, Row } from '../report';
import type { BenchContext } from './context';

const TOPIC: LeadTopic = 'lead/create';
const SIGNATURE_HEADER = 'x-svc-signature-v2';

/** The load generator process. */
export class LoadGenerator {
	private readonly stderr: () => string;

	private constructor(private readonly child: ChildProcess) {
		this.stderr = stderrOf(child);
	}

	static start(): LoadGenerator {
		return new LoadGenerator(forkTs('bench/load-generator.ts', []));
	}

	private ask(
		message: ParentMessage,
		answer: ChildMessage['type'],
		timeoutMs: number,
	): Promise<ChildMessage> {
		const reply = new Promise<ChildMessage>((resolve, reject) => {
			const onMessage = (received: ChildMessage) => {
				if (received.type !== answer && received.type !== 'failed') return;
				cleanup();
				if (received.type === 'failed') reject(new Error(`load generator: ${received.error}`));
				else resolve(received);
			};
			const onExit = (code: number | null) => {
				cleanup();
				reject(new Error(`load generator exited (${String(code)}): ${this.stderr()}`));
			};
			const cleanup = () => {
				this.child.off('message', onMessage);
				this.child.off('exit', onExit);
			};
			this.child.on('message', onMessage);
			this.child.once('exit', onExit);
		});
		this.child.send(message);
		return withTimeout(reply, timeoutMs, `load generator (${message.type})`);
	}

	async prepare(plan: LoadPlan): Promise<void> {
		await this.ask({ type: 'prepare', ...plan }, 'prepared', 60_000);
	}

	async go(): Promise<LoadResult> {
		const reply = await this.ask({ type: 'go' }, 'done', 5 * 60_000);
		if (reply.type !== 'done') throw new Error('load generator: unexpected answer');
		return reply.result;
	}

	async close(): Promise<void> {
		if (this.child.connected) this.child.send({ type: 'exit' });
		await stopChild(this.child);
	}
}

/** The baseline receiver: raw body, HMAC-SHA256 over it, constant-time compare, 200. */
async function startBareReceiver(
	secret: string,
): Promise<{ url: string; accepted: () => number; close: () => Promise<void> }> {
	let accepted = 0;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const expected = createHmac('sha256', secret).update(Buffer.concat(chunks)).digest();
			const presented = Buffer.from(String(req.headers[SIGNATURE_HEADER] ?? ''), 'hex');
			const ok = presented.length === expected.length && timingSafeEqual(presented, expected);
			if (ok) accepted++;
			res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
			res.end(ok ? '{"received":true}' : '{"error":"invalid_signature"}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook`,
		accepted: () => accepted,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

interface DeliveryRun {
	/** trigger: our node in the n8n host; floor: the webhook floor trigger in the same host; bare: node:http */
	side: 'trigger' | 'floor' | 'bare';
	fetchFullLead: boolean;
	count: number;
	/** load generator: first send to last answer */
	answeredMs: number;
	/** this process: 'go' to the last answer and every started execution finished */
	settledMs: number;
	statuses: Record<number, number>;
	executions: number;
}

function checkAllAccepted(side: string, result: LoadResult, count: number): void {
	if (result.errors > 0)
		throw new Error(`${side}: ${result.errors} deliveries failed (${result.firstError ?? ''})`);
	if ((result.statuses[200] ?? 0) !== count) {
		throw new Error(
			`${side}: expected ${count} answers 200, got ${JSON.stringify(result.statuses)}`,
		);
	}
}

/**
 * A fresh workflow (new node, empty static data) activated on a reset simulator, then
 * `count` signed deliveries. side 'floor': the same host with the webhook floor trigger.
 */
export async function triggerRun(
	ctx: BenchContext,
	load: LoadGenerator,
	count: number,
	fetchFullLead: boolean,
	side: 'trigger' | 'floor' = 'trigger',
): Promise<DeliveryRun> {
	const { sim, config } = ctx;
	await sim.reset();
	// Events for existing leads when the trigger fetches them (cycled when fewer than deliveries).
	const leadIds = fetchFullLead ? await sim.seedLeads(Math.min(count, 2000)) : undefined;
	const floorSecret = `whsec_floor_${Math.random().toString(36).slice(2)}`;
	const harness = side === 'floor' ? new WebhookFloorHarness(sim.addresses()) : freshHarness(sim);
	const parameters: INodeParameters =
		side === 'floor' ? { secret: floorSecret } : { events: [TOPIC], fetchFullLead };
	const host = await TriggerHost.start(harness, { parameters });
	try {
		await host.activate();
		// The trigger keeps its secret sealed: the service's copy signs the load.
		const secret =
			side === 'floor' ? floorSecret : await sim.signingSecret(host.webhookUrl(), TOPIC);
		if (!secret) throw new Error('the trigger made no subscription on activation');
		await load.prepare({
			url: host.webhookUrl(),
			secret,
			topic: TOPIC,
			count,
			concurrency: config.deliveryConcurrency,
			leadIds,
		});
		const start = nowMs();
		const result = await load.go();
		await withTimeout(host.settle(), 5 * 60_000, `${side}: the executions of ${count} deliveries`);
		const settledMs = nowMs() - start;
		checkAllAccepted(side, result, count);
		if (host.crashes.length > 0)
			throw new Error(`${side}: webhook() threw: ${host.crashes[0].message}`);
		const executions = host.executions.length;
		if (executions !== count)
			throw new Error(`${side}: ${executions} executions for ${count} deliveries`);
		const failed = host.executions.filter(
			(execution) => execution.run.data.resultData.error,
		).length;
		if (failed > 0) throw new Error(`${side}: ${failed} executions ended with an error`);
		if (fetchFullLead && host.executions.some((execution) => !execution.items[0]?.json.lead)) {
			throw new Error(`${side}: an execution has no fetched lead`);
		}
		await host.deactivate();
		return {
			side,
			fetchFullLead,
			count,
			answeredMs: result.elapsedMs,
			settledMs,
			statuses: result.statuses,
			executions,
		};
	} finally {
		await host.close();
	}
}

async function bareRun(
	load: LoadGenerator,
	count: number,
	concurrency: number,
): Promise<DeliveryRun> {
	const secret = `whsec_bench_${Math.random().toString(36).slice(2)}`;
	const receiver = await startBareReceiver(secret);
	try {
		await load.prepare({ url: receiver.url, secret, topic: TOPIC, count, concurrency });
		const start = nowMs();
		const result = await load.go();
		const settledMs = nowMs() - start;
		checkAllAccepted('bare receiver', result, count);
		if (receiver.accepted() !== count)
			throw new Error(`bare receiver: ${receiver.accepted()} verified of ${count}`);
		return {
			side: 'bare',
			fetchFullLead: false,
			count,
			answeredMs: result.elapsedMs,
			settledMs,
			statuses: result.statuses,
			executions: 0,
		};
	} finally {
		await receiver.close();
	}
}

export async function triggerCase(ctx: BenchContext): Promise<Omit<CaseResult, 'seconds'>> {
	const { sim, config } = ctx;
	const count = config.deliveries;
	const runs: DeliveryRun[] = [];
	const load = LoadGenerator.start();
	try {
		// Warm-up: both receivers, the handler's code paths, the load generator.
		const warm = Math.min(300, count);
		const sides: Array<() => Promise<DeliveryRun>> = [
			() => triggerRun(ctx, load, count, false),
			() => bareRun(load, count, config.deliveryConcurrency),
			...(config.diagnostics ? [() => triggerRun(ctx, load, count, false, 'floor')] : []),
		];
		await triggerRun(ctx, load, warm, false);
		await bareRun(load, warm, config.deliveryConcurrency);
		if (config.diagnostics) await triggerRun(ctx, load, warm, false, 'floor');
		for (let run = 0; run < config.runs; run++) {
			// Rotated, so drift (and other load on the machine) hits every side alike.
			const line: DeliveryRun[] = [];
			for (const side of run % 2 === 0 ? sides : [...sides].reverse()) line.push(await side());
			runs.push(...line);
			ctx.log(
				`  deliveries x${count}, run ${run + 1}/${config.runs}: ${line.map((entry) => `${entry.side} ${Math.round(entry.settledMs)} ms`).join(', ')}`,
			);
		}
		// With Fetch Full Lead on: one GET /leads/:id per delivery, through n8n's HTTP helper.
		await triggerRun(ctx, load, warm, true);
		for (let run = 0; run < config.runs; run++) {
			runs.push(await triggerRun(ctx, load, count, true));
			ctx.log(
				`  deliveries x${count} with fetch, run ${run + 1}/${config.runs}: ${Math.round(runs.at(-1)?.settledMs ?? 0)} ms`,
			);
		}
	} finally {
		await load.close();
		await sim.reset();
	}

	const rate = (
		side: DeliveryRun['side'],
		fetch: boolean,
		field: 'settledMs' | 'answeredMs' = 'settledMs',
	) =>
		perSecond(
			count,
			median(
				runs
					.filter((run) => run.side === side && run.fetchFullLead === fetch)
					.map((run) => run[field]),
			),
		);
	const ours = rate('trigger', false);
	const bare = rate('bare', false);
	const withFetch = rate('trigger', true);
	const rows: Row[] = [
		{
			case: '4 trigger',
			metric: `verified deliveries/s, fetch off (${count} x ${config.deliveryConcurrency} concurrent)`,
			ours,
			baseline: bare,
			ratio: ratio(ours, bare),
			target: '>= 0.70 x bare',
			met: ratio(ours, bare) >= 0.7,
			note: 'ours: until every delivery is answered 200 and every execution n8n started for it has finished; bare: node:http, HMAC-SHA256 check, 200; load generator in its own process (undici pool); median of runs',
		},
		{
			case: '4 trigger',
			metric: 'answered/s only, fetch off',
			ours: rate('trigger', false, 'answeredMs'),
			baseline: rate('bare', false, 'answeredMs'),
			ratio: ratio(rate('trigger', false, 'answeredMs'), rate('bare', false, 'answeredMs')),
			note: 'as seen by the load generator: first request sent to last answer read (executions may still run)',
		},
		{
			case: '4 trigger',
			metric: 'verified deliveries/s, fetch on',
			ours: withFetch,
			baseline: bare,
			ratio: ratio(withFetch, bare),
			note: "Fetch Full Lead on: one GET /leads/:id per delivery through n8n's HTTP helper before the 200; baseline is the same bare HMAC server (it fetches nothing)",
		},
	];
	const floor = rate('floor', false);
	if (Number.isFinite(floor)) {
		rows.push(
			{
				case: '4 trigger',
				metric: 'diag: n8n webhook floor vs bare',
				ours: floor,
				baseline: bare,
				ratio: ratio(floor, bare),
				note: "Ours: the webhook floor, a trigger whose webhook() only checks the HMAC and starts an execution, in the same host (express, a Workflow per request, n8n-core's WebhookContext, one execution per delivery); Baseline: the bare HMAC server",
			},
			{
				case: '4 trigger',
				metric: 'diag: ours vs n8n webhook floor',
				ours,
				baseline: floor,
				ratio: ratio(ours, floor),
				note: 'Ours: our trigger, fetch off; Baseline: the webhook floor. The difference is our handler: parameters, static data, deduplication (the recent-events list packed into static data on every delivery)',
			},
		);
	}
	return { id: '4', title: 'Trigger deliveries', rows, details: { runs } };
}
