/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The shared services of n8n's queue mode, each private to one e2e run: PostgreSQL (a cluster
 * in a temporary folder, PostgreSQL 15 as installed on these machines), Redis (no persistence)
 * and nginx as the round-robin load balancer in front of the webhook processes. Loopback only,
 * free ports, no system service; every process is stopped by its process group.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { freeLoopbackPort } from '../n8n-instance';
import { startProcess, stopProcess, type StartedProcess } from '../processes';
import { log } from '../report';
import { pollUntil } from '../wait';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

export interface Service {
	port: number;
	stop(): Promise<void>;
}

/** Installs the Debian packages the services need when they are missing (a new machine has none). */
export async function provideQueueModePackages(): Promise<void> {
	await run(
		'bash',
		[path.join(REPO_ROOT, 'scripts', 'e2e', 'provide-debian-packages.sh'), 'redis-server', 'nginx'],
		{
			timeout: 15 * 60_000,
			maxBuffer: 16 * 1024 * 1024,
		},
	);
}

function postgresBin(): string {
	const root = '/usr/lib/postgresql';
	const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
	const bin = versions
		.map((version) => path.join(root, version, 'bin'))
		.find((folder) => existsSync(path.join(folder, 'initdb')));
	if (!bin)
		throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb)');
	return bin;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the unprivileged user `postgres`. */
function asPostgres(command: string, args: string[]): [string, string[]] {
	return process.getuid?.() === 0
		? ['runuser', ['-u', 'postgres', '--', command, ...args]]
		: [command, args];
}

async function tcpAnswers(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

export interface Postgres extends Service {
	database: string;
	user: string;
}

export async function startPostgres(): Promise<Postgres> {
	const bin = postgresBin();
	const root = mkdtempSync(path.join(os.tmpdir(), 'partner-leads-e2e-postgres-'));
	const data = path.join(root, 'data');
	if (process.getuid?.() === 0) await run('chown', ['-R', 'postgres:postgres', root]);
	const port = await freeLoopbackPort();
	const exec = async (command: string, args: string[], timeout: number) => {
		const [file, argv] = asPostgres(path.join(bin, command), args);
		await run(file, argv, { timeout, cwd: root });
	};
	await exec('initdb', ['-D', data, '-U', 'n8n', '--auth=trust', '-E', 'UTF8'], 120_000);
	const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200`;
	await exec(
		'pg_ctl',
		['-D', data, '-l', path.join(root, 'postgres.log'), '-o', options, '-w', '-t', '60', 'start'],
		90_000,
	);
	await exec('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', 'n8n'], 30_000);
	log(`PostgreSQL on 127.0.0.1:${port} (${root})`);
	return {
		port,
		database: 'n8n',
		user: 'n8n',
		stop: async () => {
			await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], 45_000).catch(
				() => undefined,
			);
			rmSync(root, { recursive: true, force: true });
		},
	};
}

async function stopAndRemove(started: StartedProcess, root: string): Promise<void> {
	await stopProcess(started, 5_000);
	rmSync(root, { recursive: true, force: true });
}

export async function startRedis(): Promise<Service> {
	const root = mkdtempSync(path.join(os.tmpdir(), 'partner-leads-e2e-redis-'));
	const port = await freeLoopbackPort();
	const started = startProcess(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			root,
		],
		{
			cwd: root,
			stdio: 'ignore',
		},
	);
	await pollUntil(async () => ((await tcpAnswers(port)) ? true : undefined), {
		timeoutMs: 30_000,
		intervalMs: 200,
		what: 'Redis to listen',
	});
	log(`Redis on 127.0.0.1:${port}`);
	return { port, stop: () => stopAndRemove(started, root) };
}

/** nginx in front of the webhook processes, round-robin, as self-hosters deploy it; a failed request is never sent to the other process. */
export async function startLoadBalancer(port: number, backendPorts: number[]): Promise<Service> {
	const root = mkdtempSync(path.join(os.tmpdir(), 'partner-leads-e2e-nginx-'));
	mkdirSync(path.join(root, 'tmp'));
	const temp = path.join(root, 'tmp');
	const config = `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${root}/nginx.pid;
error_log ${root}/error.log warn;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path ${temp}/body; proxy_temp_path ${temp}/proxy; fastcgi_temp_path ${temp}/fastcgi;
	uwsgi_temp_path ${temp}/uwsgi; scgi_temp_path ${temp}/scgi;
	upstream n8n_webhooks {
${backendPorts.map((backend) => `		server 127.0.0.1:${backend};`).join('\n')}
	}
	server {
		listen 127.0.0.1:${port};
		location / {
			proxy_pass http://n8n_webhooks;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $http_host;
			proxy_next_upstream off;
			proxy_read_timeout 60s;
		}
	}
}
`;
	const configFile = path.join(root, 'nginx.conf');
	writeFileSync(configFile, config);
	const started = startProcess('nginx', ['-p', root, '-c', configFile, '-g', 'daemon off;'], {
		cwd: root,
		stdio: 'ignore',
	});
	await pollUntil(async () => ((await tcpAnswers(port)) ? true : undefined), {
		timeoutMs: 30_000,
		intervalMs: 200,
		what: 'nginx to listen',
	});
	log(`nginx on 127.0.0.1:${port}, round-robin over ${backendPorts.join(', ')}`);
	return { port, stop: () => stopAndRemove(started, root) };
}
