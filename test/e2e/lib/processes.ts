/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Child processes of the e2e suite. Every process is started in its own process group and
 * registered here, so it can be stopped by its pid (the whole group) whatever happens:
 * normal end, failure, signal, or the suite's hard time bound.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

const running = new Set<ChildProcess>();

export interface StartedProcess {
	child: ChildProcess;
	/** resolves with the exit code (or the signal name) once the process is gone */
	exited: Promise<number | string>;
}

export function startProcess(
	command: string,
	args: string[],
	options: SpawnOptions,
): StartedProcess {
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- the e2e runner starts n8n itself; never shipped
	const child = spawn(command, args, { ...options, detached: true });
	running.add(child);
	const exited = new Promise<number | string>((resolve) => {
		child.once('exit', (code, signal) => {
			running.delete(child);
			resolve(code ?? signal ?? 'unknown');
		});
		child.once('error', (error) => {
			running.delete(child);
			resolve(`spawn error: ${error.message}`);
		});
	});
	return { child, exited };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		// negative pid: the process group the child leads (it was started detached)
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// already gone
		}
	}
}

/** SIGTERM to the process group, SIGKILL after `graceMs` if it is still there. */
export async function stopProcess(started: StartedProcess, graceMs = 10_000): Promise<void> {
	const { child, exited } = started;
	if (child.exitCode !== null || child.signalCode !== null) {
		signalGroup(child, 'SIGKILL'); // leftovers of the group, if any
		return;
	}
	signalGroup(child, 'SIGTERM');
	let timer: NodeJS.Timeout | undefined;
	const killed = new Promise<void>((resolve) => {
		timer = setTimeout(() => {
			signalGroup(child, 'SIGKILL');
			resolve();
		}, graceMs);
	});
	await Promise.race([exited.then(() => undefined), killed]);
	clearTimeout(timer);
	signalGroup(child, 'SIGKILL');
}

/** Synchronous last resort (exit handlers, the hard time bound): SIGKILL to every group still registered. */
export function killAllNow(): void {
	for (const child of running) signalGroup(child, 'SIGKILL');
	running.clear();
}

/** The exit code (or signal name); after `timeoutMs` the process is stopped and 'timeout' is returned. */
export async function exitWithin(
	started: StartedProcess,
	timeoutMs: number,
): Promise<number | string> {
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<'timeout'>((resolve) => {
		timer = setTimeout(() => resolve('timeout'), timeoutMs);
	});
	const outcome = await Promise.race([started.exited, timedOut]);
	clearTimeout(timer);
	if (outcome === 'timeout') await stopProcess(started, 5_000);
	return outcome;
}
