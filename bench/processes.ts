/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Child processes of the bench (the simulator, the load generator, the memory runs). Each
 * is registered so the runner stops exactly the processes it started, by their pid, on any
 * way out.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');

/**
 * Node flags that load TypeScript sources, as `ts-node --transpile-only --prefer-ts-exts`
 * does (with the env below): without preferring .ts, `require('.../PartnerLeads.node')`
 * finds PartnerLeads.node.json (the codex file) before PartnerLeads.node.ts.
 */
export const TS_NODE_FLAGS = ['-r', 'ts-node/register/transpile-only'];

const running = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
	running.add(child);
	child.once('exit', () => running.delete(child));
	child.once('error', () => running.delete(child));
	return child;
}

/** A TypeScript entry point as a plain child process (stdout/stderr piped). */
export function spawnTs(entry: string, args: string[], nodeFlags: string[] = []): ChildProcess {
	return track(
		spawn(process.execPath, [...nodeFlags, ...TS_NODE_FLAGS, path.resolve(ROOT, entry), ...args], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_PREFER_TS_EXTS: 'true' },
		}),
	);
}

/** A TypeScript entry point with an IPC channel (process.send / 'message'). */
export function forkTs(entry: string, args: string[], nodeFlags: string[] = []): ChildProcess {
	return track(
		fork(path.resolve(ROOT, entry), args, {
			cwd: ROOT,
			execArgv: [...nodeFlags, ...TS_NODE_FLAGS],
			stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
			env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_PREFER_TS_EXTS: 'true' },
		}),
	);
}

export function exited(child: ChildProcess): Promise<number | string> {
	if (child.exitCode !== null || child.signalCode !== null)
		return Promise.resolve(child.exitCode ?? child.signalCode ?? 'gone');
	return new Promise((resolve) =>
		child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
	);
}

/** SIGTERM, then SIGKILL after `graceMs`. Only this child, by its pid. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const gone = exited(child);
	child.kill('SIGTERM');
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<void>((resolve) => {
		timer = setTimeout(() => {
			child.kill('SIGKILL');
			resolve();
		}, graceMs);
	});
	await Promise.race([gone.then(() => undefined), late]);
	clearTimeout(timer);
}

/** Pids of the children still running (for CPU accounting). */
export function livePids(): number[] {
	return [...running].map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
}

/** Synchronous last resort: SIGKILL to every child still running (each by its own pid). */
export function killChildrenNow(): void {
	for (const child of running) {
		try {
			child.kill('SIGKILL');
		} catch {
			// already gone
		}
	}
	running.clear();
}

/** Collects a child's stderr (bounded), for error messages. */
export function stderrOf(child: ChildProcess, limit = 20_000): () => string {
	let text = '';
	child.stderr?.setEncoding('utf8');
	child.stderr?.on('data', (chunk: string) => {
		if (text.length < limit) text += chunk.slice(0, limit - text.length);
	});
	return () => text;
}

/** Rejects after `ms` unless `promise` settles first. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)),
			ms,
		);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/** Runs a bench entry point: exit 0 when it resolves; its error on stderr and exit 1 when it throws. */
export function runMain(main: () => Promise<void>): void {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			process.stderr.write(
				`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
			);
			process.exit(1);
		},
	);
}
