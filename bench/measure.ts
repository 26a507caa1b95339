/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/** Measurement helpers shared by the cases: timing, medians, memory. */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export function median(values: readonly number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export function nowMs(): number {
	return Number(process.hrtime.bigint()) / 1e6;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
	const start = nowMs();
	const value = await work();
	return { ms: nowMs() - start, value };
}

/** Runs `measure` `runs` times (after `warmUp`, if any) and returns every sample. */
export async function repeat<T>(
	runs: number,
	measure: (run: number) => Promise<T>,
	warmUp?: () => Promise<unknown>,
): Promise<T[]> {
	if (warmUp) await warmUp();
	const samples: T[] = [];
	for (let run = 0; run < runs; run++) samples.push(await measure(run));
	return samples;
}

export function perSecond(count: number, ms: number): number {
	return ms > 0 ? (count * 1000) / ms : NaN;
}

export function ratio(ours: number, baseline: number): number {
	return baseline > 0 && Number.isFinite(ours) ? ours / baseline : NaN;
}

/** Runs a full GC when the process was started with --expose-gc; a no-op otherwise. */
export function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc) {
		gc();
		gc();
	}
}

export interface MemoryPoint {
	heapUsed: number;
	rss: number;
}

export function memoryNow(): MemoryPoint {
	const { heapUsed, rss } = process.memoryUsage();
	return { heapUsed, rss };
}

/**
 * Samples heap and RSS on a timer while work runs (timers fire between the I/O callbacks
 * of a paging run), and keeps the highest values seen.
 */
export class PeakMemory {
	private peak: MemoryPoint;

	private readonly timer: NodeJS.Timeout;

	constructor(intervalMs = 5) {
		this.peak = memoryNow();
		this.timer = setInterval(() => this.sample(), intervalMs);
	}

	sample(): void {
		const current = memoryNow();
		this.peak = {
			heapUsed: Math.max(this.peak.heapUsed, current.heapUsed),
			rss: Math.max(this.peak.rss, current.rss),
		};
	}

	stop(): MemoryPoint {
		clearInterval(this.timer);
		this.sample();
		return this.peak;
	}
}

export const MiB = 1024 * 1024;

export interface MachineInfo {
	date: string;
	cpuModel: string;
	cores: number;
	node: string;
	platform: string;
}

export function machineInfo(): MachineInfo {
	const list = cpus();
	return {
		date: new Date().toISOString(),
		cpuModel: list[0]?.model?.trim() ?? 'unknown',
		cores: list.length,
		node: process.version,
		platform: `${process.platform} ${process.arch}`,
	};
}

/** CPU time counters of the machine and of this process tree, in clock ticks (Linux only). */
export interface CpuSnapshot {
	/** all CPUs, busy (user, nice, system, irq, softirq, steal) */
	busy: number;
	/** all CPUs, busy + idle + iowait */
	total: number;
	/** this process, the children it has reaped, and the live children given */
	own: number;
}

function readTicks(pid: number | 'self', withReaped: boolean): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// Fields after the command name, which is in parentheses and may contain spaces.
	const fields = stat
		.slice(stat.lastIndexOf(')') + 2)
		.split(' ')
		.map(Number);
	const [utime, stime, cutime, cstime] = [fields[11], fields[12], fields[13], fields[14]];
	return utime + stime + (withReaped ? cutime + cstime : 0);
}

export function cpuSnapshot(livePids: readonly number[]): CpuSnapshot | undefined {
	try {
		const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
		const [user, nice, system, idle, iowait, irq, softirq, steal] = line
			.trim()
			.split(/\s+/)
			.slice(1)
			.map(Number);
		let own = readTicks('self', true);
		for (const pid of livePids) {
			try {
				own += readTicks(pid, true);
			} catch {
				// exited in between: counted in our reaped-children time
			}
		}
		const busy = user + nice + system + irq + softirq + (steal || 0);
		return { busy, total: busy + idle + iowait, own };
	} catch {
		return undefined;
	}
}

/** Cores kept busy by processes other than ours between two snapshots (machine noise). */
export function otherCores(
	before: CpuSnapshot | undefined,
	after: CpuSnapshot | undefined,
	cores: number,
): number | undefined {
	if (!before || !after || after.total <= before.total) return undefined;
	const others = after.busy - before.busy - (after.own - before.own);
	return Math.max(0, (others / (after.total - before.total)) * cores);
}
