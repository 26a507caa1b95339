/* eslint-disable no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Results of the e2e suite and the summary the CI reads: one line per check, then
 * `N passed, N failed` alone on the last line.
 */
import { runnerStallsBetween } from './runner-stalls';

export interface CheckResult {
	name: string;
	passed: boolean;
	durationMs: number;
	error?: string;
}

export class Report {
	private readonly results: CheckResult[] = [];

	/** checks announced up front: any without a result when the summary is printed failed as "not run" */
	private readonly planned: string[] = [];

	plan(names: string[]): void {
		this.planned.push(...names);
	}

	/** Runs one named check; a throw is a failure, recorded with its message. Never throws. */
	async check(name: string, body: () => Promise<void>): Promise<boolean> {
		const started = Date.now();
		log(`RUN  ${name}`);
		try {
			await body();
			this.record({ name, passed: true, durationMs: Date.now() - started });
			return true;
		} catch (error) {
			const stalls = runnerStallsBetween(started, Date.now());
			this.fail(name, stalls ? `${describe(error)} (${stalls})` : error, Date.now() - started);
			return false;
		}
	}

	/** Records a failure that happened outside a check (e.g. n8n did not start). */
	fail(name: string, error: unknown, durationMs = 0): void {
		this.record({ name, passed: false, durationMs, error: describe(error) });
	}

	get failed(): number {
		return this.results.filter((result) => !result.passed).length;
	}

	get passed(): number {
		return this.results.filter((result) => result.passed).length;
	}

	summary(): string {
		const recorded = new Set(this.results.map((result) => result.name));
		for (const name of this.planned) {
			if (!recorded.has(name))
				this.record({
					name,
					passed: false,
					durationMs: 0,
					error: 'not run: the run ended before it',
				});
		}
		const lines = ['', '== e2e summary'];
		for (const result of this.results) {
			const status = result.passed ? 'PASS' : 'FAIL';
			lines.push(`${status} ${result.name} (${(result.durationMs / 1000).toFixed(1)} s)`);
			if (result.error) lines.push(`     ${result.error.split('\n').join('\n     ')}`);
		}
		lines.push(`${this.passed} passed, ${this.failed} failed`);
		return lines.join('\n');
	}

	private record(result: CheckResult): void {
		this.results.push(result);
		const seconds = (result.durationMs / 1000).toFixed(1);
		log(
			`${result.passed ? 'PASS' : 'FAIL'} ${result.name} (${seconds} s)${result.error ? `\n     ${result.error}` : ''}`,
		);
	}
}

export function describe(error: unknown): string {
	if (error instanceof Error) return error.message;
	return String(error);
}

export function log(message: string): void {
	console.log(`[e2e ${new Date().toISOString().slice(11, 19)}] ${message}`);
}
