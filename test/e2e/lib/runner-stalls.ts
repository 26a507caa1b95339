/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Times the runner itself did not run. The simulator, every HTTP client and every time limit of
 * the suite live in the runner's one event loop: while it is blocked, answers that arrived wait
 * unread and a time limit ends as soon as it runs again. A failure that overlaps such a gap says
 * so, so that it is not read as n8n or the package being slow.
 */
import { performance } from 'node:perf_hooks';

const TICK_MS = 250;
/** A gap this much longer than a tick is reported. */
const REPORTED_GAP_MS = 5_000;

interface Gap {
	/** epoch ms the runner stopped running */
	from: number;
	ms: number;
}

const gaps: Gap[] = [];
let timer: NodeJS.Timeout | undefined;

/** Starts watching (once per run), telling `log` of each gap; the watch never keeps the runner alive. */
export function watchRunnerStalls(log: (message: string) => void): void {
	if (timer) return;
	let last = performance.now();
	timer = setInterval(() => {
		const now = performance.now();
		const late = now - last - TICK_MS;
		last = now;
		if (late < REPORTED_GAP_MS) return;
		const gap = { from: Date.now() - late, ms: late };
		gaps.push(gap);
		log(
			`the runner itself did not run for ${(late / 1000).toFixed(1)} s (from ${clock(gap.from)}): ` +
				'time limits that ended then measured the runner, not n8n',
		);
	}, TICK_MS);
	timer.unref();
}

/** The gaps between `from` and `to` (epoch ms) in words, or undefined when there was none. */
export function runnerStallsBetween(from: number, to: number): string | undefined {
	const overlapping = gaps.filter((gap) => gap.from < to && gap.from + gap.ms > from);
	if (overlapping.length === 0) return undefined;
	const each = overlapping.map((gap) => `${(gap.ms / 1000).toFixed(1)} s from ${clock(gap.from)}`);
	return `the runner itself did not run for ${each.join(', ')} during this check`;
}

function clock(epochMs: number): string {
	return new Date(epochMs).toISOString().slice(11, 19);
}
