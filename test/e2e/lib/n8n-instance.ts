/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * One real n8n process: Node 24, a temporary user folder (and HOME), SQLite, loopback only.
 * Its output goes to a log file in the temporary folder; the lines that mention our package
 * or failed node loading are kept for the report.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { startProcess, stopProcess, type StartedProcess } from './processes';
import { log } from './report';
import { pollUntil } from './wait';
import type { N8nRuntime } from './provision';

export interface N8nInstance {
	version: string;
	major: number;
	baseUrl: string;
	port: number;
	userFolder: string;
	logFile: string;
	/** the process id of n8n's main process, while it runs */
	pid(): number | undefined;
	/** log lines that mention the package, or warnings/errors about loading nodes */
	notableLogLines(): string[];
	/** stops n8n; its temporary folder (database, log) is removed unless `keepFiles` */
	stop(options?: { keepFiles?: boolean }): Promise<void>;
	/**
	 * stops n8n and starts it again on the same port, database and encryption key (as an
	 * upgrade or a crash would); `whileStopped` runs between the two (e.g. portal changes);
	 * `environment` changes variables from this start on (undefined removes one)
	 */
	restart(options?: {
		kill?: boolean;
		whileStopped?: () => Promise<void>;
		environment?: Record<string, string | undefined>;
	}): Promise<void>;
}

export interface StartOptions {
	runtime: N8nRuntime;
	/** prepares the user folder before n8n starts (e.g. installs our package into it) */
	prepareUserFolder: (userFolder: string) => void;
	startupTimeoutMs: number;
	/** substrings that make a log line notable */
	watchWords: string[];
	/**
	 * For restarts of the same instance (`npm run dev`): its folder (kept on stop), port and encryption
	 * key. Default: a new temporary folder, a free port and a random key.
	 */
	reuse?: { root: string; port: number; encryptionKey: string };
	/** extra environment variables (e.g. NODE_EXTRA_CA_CERTS for the bench's TLS proxy) */
	environment?: Record<string, string>;
	/** options for Node itself, before n8n's script (e.g. --cpu-prof) */
	nodeArgs?: string[];
}

export async function freeLoopbackPort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
		});
	});
}

/**
 * The environment n8n runs with: nothing N8N_* from the caller leaks in.
 * 1.x vs 2.x: 2.x renamed WEBHOOK_URL to N8N_WEBHOOK_URL and always runs a task runner (whose broker
 * listens on a port of its own, 5679 unless told otherwise); 1.x does not need a runner here.
 */
export function n8nEnvironment(
	root: string,
	userFolder: string,
	ports: { main: number; broker: number },
	major: number,
	encryptionKey: string = randomBytes(24).toString('hex'),
): NodeJS.ProcessEnv {
	const port = ports.main;
	const webhookUrl = `http://127.0.0.1:${port}/`;
	const versionSpecific: Record<string, string> =
		major >= 2
			? {
					N8N_WEBHOOK_URL: webhookUrl,
					N8N_RUNNERS_BROKER_PORT: String(ports.broker),
					N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
					// 2.41 fetches a public MCP server registry in the background: no network here
					N8N_DISABLED_MODULES: 'mcp-registry',
				}
			: { WEBHOOK_URL: webhookUrl, N8N_RUNNERS_ENABLED: 'false' };
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(
			([name]) =>
				!name.startsWith('N8N_') &&
				!name.startsWith('DB_') &&
				!name.startsWith('npm_') &&
				name !== 'NODE_OPTIONS',
		),
	);
	return {
		...inherited,
		HOME: path.join(root, 'home'),
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		N8N_LOG_LEVEL: process.env.N8N_E2E_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		NO_COLOR: '1',
		...versionSpecific,
	};
}

async function waitUntilReady(
	baseUrl: string,
	started: StartedProcess,
	timeoutMs: number,
): Promise<void> {
	let exitCode: number | string | undefined;
	void started.exited.then((code) => {
		exitCode = code;
	});
	const outcome = await pollUntil(
		async () => {
			if (exitCode !== undefined) return 'exited';
			const health = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
			if (!health.ok) return undefined;
			// /healthz answers before the REST routes exist; readiness waits for them (404 where it does
			// not exist), and /rest/settings answering JSON shows the REST API is mounted.
			const readiness = await fetch(`${baseUrl}/healthz/readiness`, {
				signal: AbortSignal.timeout(2_000),
			});
			if (readiness.status !== 200 && readiness.status !== 404) return undefined;
			const settings = await fetch(`${baseUrl}/rest/settings`, {
				signal: AbortSignal.timeout(5_000),
			});
			const type = settings.headers.get('content-type') ?? '';
			return settings.ok && type.includes('json') ? 'ready' : undefined;
		},
		{ timeoutMs, intervalMs: 500, what: `n8n to answer on ${baseUrl}/healthz and /rest/settings` },
	);
	if (outcome === 'exited') throw new Error(`n8n exited during startup (${exitCode})`);
}

export async function startN8n(options: StartOptions): Promise<N8nInstance> {
	const { runtime } = options;
	const major = Number(runtime.version.split('.')[0]);
	const root =
		options.reuse?.root ??
		mkdtempSync(path.join(os.tmpdir(), `partner-leads-e2e-n8n-${runtime.version}-`));
	const userFolder = path.join(root, 'user');
	mkdirSync(userFolder, { recursive: true });
	mkdirSync(path.join(root, 'home'), { recursive: true });
	options.prepareUserFolder(userFolder);

	const port = options.reuse?.port ?? (await freeLoopbackPort());
	const encryptionKey = options.reuse?.encryptionKey ?? randomBytes(24).toString('hex');
	let brokerPort = await freeLoopbackPort();
	while (brokerPort === port) brokerPort = await freeLoopbackPort();
	const baseUrl = `http://127.0.0.1:${port}`;
	const logFile = path.join(root, 'n8n.log');
	const logStream = createWriteStream(logFile, { flags: 'a' });
	const notable: string[] = [];
	const watchWords = options.watchWords.map((word) => word.toLowerCase());
	// The cache folder's name contains our package name: take it out of lines before matching.
	const cacheRoot = path.resolve(runtime.n8nBin, '..', '..', '..', '..', '..');
	let partial = '';
	const onOutput = (chunk: Buffer) => {
		logStream.write(chunk);
		const lines = (partial + chunk.toString('utf8')).split('\n');
		partial = lines.pop() ?? '';
		for (const line of lines) {
			const normalized = line.split(cacheRoot).join('<e2e-cache>').trim();
			const lower = normalized.toLowerCase();
			if (watchWords.some((word) => lower.includes(word))) notable.push(normalized);
		}
	};

	const environment: NodeJS.ProcessEnv = {
		...n8nEnvironment(root, userFolder, { main: port, broker: brokerPort }, major, encryptionKey),
		...options.environment,
	};
	let started: StartedProcess | undefined;
	const launch = async () => {
		log(`starting n8n ${runtime.version} on ${baseUrl} (log: ${logFile})`);
		const launched = startProcess(
			runtime.node,
			[...(options.nodeArgs ?? []), runtime.n8nBin, 'start'],
			{
				cwd: root,
				env: environment,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		launched.child.stdout?.on('data', onOutput);
		launched.child.stderr?.on('data', onOutput);
		started = launched;
		const startedAt = Date.now();
		await waitUntilReady(baseUrl, launched, options.startupTimeoutMs);
		log(`n8n ${runtime.version} ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
	};
	const stopProcessOnly = async (kill = false) => {
		if (started) await stopProcess(started, kill ? 0 : 15_000);
		started = undefined;
	};
	const stop = async (stopOptions: { keepFiles?: boolean } = {}) => {
		await stopProcessOnly();
		await new Promise<void>((resolve) => logStream.end(resolve));
		if (!stopOptions.keepFiles && !options.reuse) rmSync(root, { recursive: true, force: true });
	};
	const startOrExplain = async () => {
		try {
			await launch();
		} catch (error) {
			await stop({ keepFiles: true });
			const reason = error instanceof Error ? error.message : String(error);
			throw new Error(`n8n ${runtime.version} did not start: ${reason} (log: ${logFile})`);
		}
	};
	await startOrExplain();

	return {
		version: runtime.version,
		major,
		baseUrl,
		port,
		userFolder,
		logFile,
		pid: () => started?.child.pid,
		notableLogLines: () => [...notable],
		stop,
		restart: async (restartOptions = {}) => {
			await stopProcessOnly(restartOptions.kill);
			await restartOptions.whileStopped?.();
			for (const [name, value] of Object.entries(restartOptions.environment ?? {})) {
				if (value === undefined) delete environment[name];
				else environment[name] = value;
			}
			await startOrExplain();
		},
	};
}
