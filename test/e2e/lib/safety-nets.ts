/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { killAllNow } from './processes';
import type { Report } from './report';
import { describe, log } from './report';

/**
 * What a run of real n8n processes (the e2e suite, the floor) does on the way out, whatever the
 * way: every process it started is killed, the report printed; a signal or the hard time bound
 * ends it as failed.
 */
export function safetyNets(
	report: Report,
	run: string,
	hardLimitMs: number,
): { finish(code: number): never; hardBound: NodeJS.Timeout } {
	const finish = (code: number): never => {
		killAllNow();
		console.log(report.summary());
		process.exit(code);
	};
	process.on('exit', killAllNow);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			report.fail(run, `interrupted by ${signal}`);
			finish(130);
		});
	}
	process.on('unhandledRejection', (error) => log(`unhandled rejection: ${describe(error)}`));
	const hardBound = setTimeout(() => {
		report.fail(
			run,
			`hard time bound of ${hardLimitMs / 60_000} minutes reached; every started process was killed`,
		);
		finish(1);
	}, hardLimitMs);
	return { finish, hardBound };
}
