/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * n8n in queue mode, the way users scale it out: one main process (editor, REST API,
 * activation; no production webhooks), worker processes that run the executions, and webhook
 * processes behind a round-robin load balancer that receive production webhooks. All share
 * PostgreSQL, Redis and one encryption key. Each n8n process has its own temporary user folder
 * with the package installed as a community package.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freeLoopbackPort, n8nEnvironment } from '../n8n-instance';
import { startProcess, stopProcess, type StartedProcess } from '../processes';
import type { N8nRuntime } from '../provision';
import { log } from '../report';
import { pollUntil } from '../wait';
import {
	provideQueueModePackages,
	startLoadBalancer,
	startPostgres,
	startRedis,
	type Service,
} from './services';

export type Role = 'main' | 'worker' | 'webhook';

export interface N8nProcess {
	role: Role;
	name: string;
	/** the HTTP port (main and webhook processes) */
	port: number;
	baseUrl: string;
	logFile: string;
	/** the process id while it runs (it leads its own process group) */
	pid(): number | undefined;
	/** stops the process (SIGKILL when `kill`) and starts it again with the same folder, port and settings */
	restart(options?: { kill?: boolean }): Promise<void>;
	/** SIGKILL, no restart: a crash */
	kill(): Promise<void>;
	stop(options?: { keepFiles?: boolean }): Promise<void>;
}

export interface QueueCluster {
	version: string;
	main: N8nProcess;
	workers: N8nProcess[];
	webhooks: N8nProcess[];
	/** the load balancer's address: n8n's webhook URL, the one the service delivers to */
	balancerUrl: string;
	stop(options?: { keepFiles?: boolean }): Promise<void>;
}

export interface ClusterOptions {
	runtime: N8nRuntime;
	prepareUserFolder: (userFolder: string) => void;
	workers?: number;
	webhookProcesses?: number;
	startupTimeoutMs?: number;
}

const READY_LINES: Record<Exclude<Role, 'main'>, string> = {
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests',
};

async function startRole(
	runtime: N8nRuntime,
	role: Role,
	name: string,
	shared: NodeJS.ProcessEnv,
	options: ClusterOptions,
	port: number,
): Promise<N8nProcess> {
	const major = Number(runtime.version.split('.')[0]);
	const root = mkdtempSync(path.join(os.tmpdir(), `partner-leads-e2e-queue-${name}-`));
	const userFolder = path.join(root, 'user');
	mkdirSync(userFolder, { recursive: true });
	mkdirSync(path.join(root, 'home'), { recursive: true });
	options.prepareUserFolder(userFolder);
	const broker = await freeLoopbackPort();
	const environment = {
		...n8nEnvironment(root, userFolder, { main: port, broker }, major),
		...shared,
		...(role === 'main' ? { N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' } : {}),
	};
	const logFile = path.join(root, 'n8n.log');
	const logStream = createWriteStream(logFile, { flags: 'a' });
	const baseUrl = `http://127.0.0.1:${port}`;
	let started: StartedProcess | undefined;

	const launch = async () => {
		let output = '';
		const args = [
			runtime.n8nBin,
			role === 'main' ? 'start' : role,
			...(role === 'worker' ? ['--concurrency=5'] : []),
		];
		const launched = startProcess(runtime.node, args, {
			cwd: root,
			env: environment,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const onOutput = (chunk: Buffer) => {
			logStream.write(chunk);
			if (output.length < 200_000) output += chunk.toString('utf8');
		};
		launched.child.stdout?.on('data', onOutput);
		launched.child.stderr?.on('data', onOutput);
		started = launched;
		let exited: number | string | undefined;
		void launched.exited.then((code) => (exited = code));
		const startedAt = Date.now();
		await pollUntil(
			async () => {
				if (exited !== undefined)
					throw new Error(
						`n8n ${role} "${name}" exited during startup (${exited}); log: ${logFile}`,
					);
				if (role !== 'main') return output.includes(READY_LINES[role]) ? true : undefined;
				const settings = await fetch(`${baseUrl}/rest/settings`, {
					signal: AbortSignal.timeout(5_000),
				}).catch(() => undefined);
				return settings?.ok && (settings.headers.get('content-type') ?? '').includes('json')
					? true
					: undefined;
			},
			{
				timeoutMs: options.startupTimeoutMs ?? 180_000,
				intervalMs: 500,
				what: `n8n ${role} "${name}" to be ready (log: ${logFile})`,
			},
		);
		log(
			`n8n ${runtime.version} ${role} "${name}" ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
		);
	};
	const stopOnly = async (kill = false) => {
		if (started) await stopProcess(started, kill ? 0 : 15_000);
		started = undefined;
	};
	await launch();
	return {
		role,
		name,
		port,
		baseUrl,
		logFile,
		pid: () => started?.child.pid,
		restart: async (restartOptions = {}) => {
			await stopOnly(restartOptions.kill);
			await launch();
		},
		kill: async () => await stopOnly(true),
		stop: async (stopOptions = {}) => {
			await stopOnly();
			await new Promise<void>((resolve) => logStream.end(resolve));
			if (!stopOptions.keepFiles) rmSync(root, { recursive: true, force: true });
		},
	};
}

export async function startQueueCluster(options: ClusterOptions): Promise<QueueCluster> {
	const { runtime } = options;
	const major = Number(runtime.version.split('.')[0]);
	await provideQueueModePackages();
	const services: Service[] = [];
	const processes: N8nProcess[] = [];
	const stop = async (stopOptions: { keepFiles?: boolean } = {}) => {
		for (const started of processes.reverse())
			await started.stop(stopOptions).catch(() => undefined);
		for (const service of services.reverse()) await service.stop().catch(() => undefined);
	};
	try {
		const postgres = await startPostgres();
		services.push(postgres);
		const redis = await startRedis();
		services.push(redis);
		const balancerPort = await freeLoopbackPort();
		const balancerUrl = `http://127.0.0.1:${balancerPort}`;
		const shared: NodeJS.ProcessEnv = {
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// a worker that dies mid-run is noticed within seconds, not the default half minute
			QUEUE_WORKER_LOCK_DURATION: '10000',
			QUEUE_WORKER_LOCK_RENEW_TIME: '2500',
			QUEUE_WORKER_STALLED_INTERVAL: '5000',
			N8N_PROXY_HOPS: '1',
			...(major >= 2 ? { N8N_WEBHOOK_URL: `${balancerUrl}/` } : { WEBHOOK_URL: `${balancerUrl}/` }),
		};
		// the main process migrates the database first; the others start once it is ready
		const main = await startRole(
			runtime,
			'main',
			'main',
			shared,
			options,
			await freeLoopbackPort(),
		);
		processes.push(main);
		const roles: Array<[Role, string]> = [
			...Array.from({ length: options.workers ?? 2 }, (_, index): [Role, string] => [
				'worker',
				`worker-${index + 1}`,
			]),
			...Array.from({ length: options.webhookProcesses ?? 2 }, (_, index): [Role, string] => [
				'webhook',
				`webhook-${index + 1}`,
			]),
		];
		const others = await Promise.all(
			roles.map(
				async ([role, name]) =>
					await startRole(runtime, role, name, shared, options, await freeLoopbackPort()),
			),
		);
		processes.push(...others);
		const webhooks = others.filter((started) => started.role === 'webhook');
		services.push(
			await startLoadBalancer(
				balancerPort,
				webhooks.map((started) => started.port),
			),
		);
		return {
			version: runtime.version,
			main,
			workers: others.filter((started) => started.role === 'worker'),
			webhooks,
			balancerUrl,
			stop,
		};
	} catch (error) {
		await stop({ keepFiles: true });
		throw error;
	}
}
