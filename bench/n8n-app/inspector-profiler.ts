/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A CPU profile of a running n8n for one stretch of work only (not its start-up): n8n runs
 * with `--inspect=127.0.0.1:<port>`, and the bench starts and stops V8's profiler over the
 * inspector protocol around the measured runs.
 */
import { WebSocket } from 'undici';

import type { CpuProfile } from './cpu-profile-summary';

export class InspectorProfiler {
	private nextId = 1;
	private readonly pending = new Map<number, (result: unknown) => void>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
			if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
		});
	}

	static async connect(inspectPort: number): Promise<InspectorProfiler> {
		const targets = (await (
			await fetch(`http://127.0.0.1:${inspectPort}/json/list`)
		).json()) as Array<{ webSocketDebuggerUrl: string }>;
		const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener('open', () => resolve());
			socket.addEventListener('error', () => reject(new Error('no inspector connection')));
		});
		const profiler = new InspectorProfiler(socket);
		await profiler.send('Profiler.enable');
		await profiler.send('Profiler.setSamplingInterval', { interval: 500 });
		return profiler;
	}

	private async send(method: string, params: object = {}): Promise<unknown> {
		const id = this.nextId++;
		const answer = new Promise<unknown>((resolve) => this.pending.set(id, resolve));
		this.socket.send(JSON.stringify({ id, method, params }));
		const result = await Promise.race([
			answer,
			new Promise((_resolve, reject) =>
				setTimeout(() => reject(new Error(`${method}: no answer`)), 60_000),
			),
		]);
		this.pending.delete(id);
		return result;
	}

	async start(): Promise<void> {
		await this.send('Profiler.start');
	}

	async stop(): Promise<CpuProfile> {
		return ((await this.send('Profiler.stop')) as { profile: CpuProfile }).profile;
	}

	close(): void {
		this.socket.close();
	}
}
