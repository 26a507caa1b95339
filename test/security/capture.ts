/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import path from 'node:path';

/**
 * Everything written to logs while a test runs: console.*, raw writes to stdout/stderr,
 * and n8n's own logger (the instance n8n-core's contexts use as `this.logger`, which
 * n8n-workflow's LoggerProxy forwards to, and every scoped child: their methods come from
 * Logger.prototype). Calls still go through, so nothing is hidden from the test output.
 */

export interface LogRecord {
	channel: string;
	/** the arguments as given: strings, errors, metadata objects */
	args: unknown[];
}

type Restore = () => void;

interface LoggerModule {
	Logger: { prototype: Record<string, unknown> } & (new (...args: never[]) => unknown);
}
interface DiModule {
	Container: { get(type: unknown): unknown };
}

/**
 * n8n's Logger classes: n8n-core has its own copy of @n8n/backend-common (and @n8n/di)
 * under its node_modules, which is the one its contexts use; the top-level copy is
 * wrapped too, in case anything else logs through it.
 */
function loggerModules(): Array<{ logger: LoggerModule; di: DiModule }> {
	const bases = [path.dirname(require.resolve('n8n-core/package.json')), process.cwd()];
	const found = new Map<string, { logger: LoggerModule; di: DiModule }>();
	for (const base of bases) {
		const loggerPath = require.resolve('@n8n/backend-common', { paths: [base] });
		if (found.has(loggerPath)) continue;
		found.set(loggerPath, {
			logger: require(loggerPath) as LoggerModule,
			di: require(require.resolve('@n8n/di', { paths: [base] })) as DiModule,
		});
	}
	return [...found.values()];
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
const LOGGER_METHODS = ['error', 'warn', 'info', 'debug'] as const;

export class LogCapture {
	readonly records: LogRecord[] = [];

	private restores: Restore[] = [];

	start(): void {
		for (const method of CONSOLE_METHODS)
			this.wrap(console as unknown as Record<string, unknown>, method, `console.${method}`);
		for (const { logger, di } of loggerModules()) {
			// The root logger, created as n8n-core would: LoggerProxy then forwards to it.
			di.Container.get(logger.Logger);
			for (const method of LOGGER_METHODS)
				this.wrap(logger.Logger.prototype, method, `n8n logger.${method}`);
		}
		for (const [name, stream] of [
			['stdout', process.stdout],
			['stderr', process.stderr],
		] as const) {
			this.wrap(stream as unknown as Record<string, unknown>, 'write', `process.${name}.write`);
		}
	}

	stop(): void {
		for (const restore of this.restores.reverse()) restore();
		this.restores = [];
	}

	private wrap(target: Record<string, unknown>, method: string, channel: string): void {
		const hadOwn = Object.prototype.hasOwnProperty.call(target, method);
		const original = target[method] as (...args: unknown[]) => unknown;
		const records = this.records;
		// Console output is recorded, not printed: the audit reads it, the test report stays clean.
		const silent = channel.startsWith('console.');
		target[method] = function (this: unknown, ...args: unknown[]) {
			records.push({ channel, args });
			return silent ? undefined : original.apply(this, args);
		};
		this.restores.push(() => {
			if (hadOwn) target[method] = original;
			else delete target[method];
		});
	}
}
