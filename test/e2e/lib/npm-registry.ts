/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A real npm registry on loopback: Verdaccio (scripts/e2e/provide-registry.sh provides it into
 * the e2e cache), its storage in a temporary folder, no uplink. It holds only what a test
 * publishes to it: n8n installs a community package with `npm pack` and an `npm install` of the
 * package's own dependencies, having removed its peer dependencies first (both lines,
 * CommunityPackagesService.downloadPackage), so our package needs nothing else from a registry,
 * and the registry asks no other one.
 */
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { exitWithin, startProcess, stopProcess, type StartedProcess } from './processes';
import { runProvideScript } from './provision';
import { freeLoopbackPort } from './n8n-instance';
import { REPO_ROOT } from './build-package';
import { readManifest } from './extension';
import { log } from './report';
import { pollUntil } from './wait';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'e2e', 'provide-registry.sh');
const NPM_TIMEOUT_MS = 120_000;

export interface NpmRegistry {
	/** `http://127.0.0.1:<port>`, without a final slash (as N8N_COMMUNITY_PACKAGES_REGISTRY) */
	url: string;
	/** packs the built package (package.json + dist/) as `version` and publishes it */
	publishPackage(version: string): Promise<void>;
	/** the version the registry's `latest` tag names (what `npm install <name>` takes), if any */
	latestVersion(name: string): Promise<string | undefined>;
	stop(): Promise<void>;
}

/** Runs scripts/e2e/provide-registry.sh (bounded) and returns Verdaccio's bin script. */
export async function provideRegistry(timeoutMs: number): Promise<string> {
	log('providing the npm registry (Verdaccio, cached outside the repository)');
	const stdout = await runProvideScript(SCRIPT, [], timeoutMs, 'providing the npm registry');
	const bin = /^N8N_E2E_REGISTRY (\S+)$/m.exec(stdout)?.[1];
	if (!bin) throw new Error('provide-registry.sh reported no Verdaccio');
	return bin;
}

/** Verdaccio's configuration: local storage, one account that may publish, no uplink, no web UI. */
function verdaccioConfig(root: string): string {
	return [
		`storage: ${JSON.stringify(path.join(root, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(path.join(root, 'htpasswd'))}`,
		'    max_users: 1',
		'uplinks: {}',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'web:',
		'  enable: false',
		'log: { type: stdout, format: json, level: http }',
		'',
	].join('\n');
}

async function runNpm(args: string[], cwd: string, what: string): Promise<string> {
	const started = startProcess('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	const collect = (chunk: Buffer) => {
		output += chunk.toString('utf8');
	};
	started.child.stdout?.on('data', collect);
	started.child.stderr?.on('data', collect);
	const outcome = await exitWithin(started, NPM_TIMEOUT_MS);
	if (outcome !== 0) throw new Error(`${what}: npm ${args[0]} ended with ${outcome}: ${output}`);
	return output;
}

/**
 * Starts Verdaccio on the given Node (Node 24 of the e2e cache) and creates the account that
 * publishes. Everything it stores lives in a temporary folder, removed by stop().
 */
export async function startNpmRegistry(options: {
	node: string;
	verdaccioBin: string;
	startupTimeoutMs: number;
}): Promise<NpmRegistry> {
	const root = mkdtempSync(path.join(os.tmpdir(), 'partner-leads-registry-'));
	writeFileSync(path.join(root, 'config.yaml'), verdaccioConfig(root));
	const port = await freeLoopbackPort();
	const url = `http://127.0.0.1:${port}`;
	const logFile = path.join(root, 'verdaccio.log');
	const logStream = createWriteStream(logFile);
	let started: StartedProcess | undefined = startProcess(
		options.node,
		[
			options.verdaccioBin,
			'--config',
			path.join(root, 'config.yaml'),
			'--listen',
			`127.0.0.1:${port}`,
		],
		{ cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
	);
	started.child.stdout?.pipe(logStream);
	started.child.stderr?.pipe(logStream);
	const stop = async () => {
		if (started) await stopProcess(started, 5_000);
		started = undefined;
		rmSync(root, { recursive: true, force: true });
	};
	try {
		const startedAt = Date.now();
		let exited: number | string | undefined;
		void started.exited.then((code) => (exited = code));
		await pollUntil(
			async () => {
				if (exited !== undefined) throw new Error(`Verdaccio exited (${exited}); log: ${logFile}`);
				const ping = await fetch(`${url}/-/ping`, { signal: AbortSignal.timeout(2_000) });
				return ping.ok ? true : undefined;
			},
			{ timeoutMs: options.startupTimeoutMs, what: `Verdaccio to answer on ${url}/-/ping` },
		);
		log(
			`npm registry (Verdaccio) ready on ${url} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
		);
		// npm adduser's own request: the account's token goes to a user config of the registry's own
		const name = 'partner-leads-ci';
		const account = await fetch(`${url}/-/user/org.couchdb.user:${name}`, {
			method: 'PUT',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ name, password: `pw-${port}-${startedAt}` }),
			signal: AbortSignal.timeout(10_000),
		});
		const { token } = (await account.json()) as { token?: string };
		if (!account.ok || !token) throw new Error(`Verdaccio refused the account (${account.status})`);
		const userconfig = path.join(root, 'npmrc');
		writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${token}\n`, { mode: 0o600 });

		return {
			url,
			stop,
			publishPackage: async (version) => {
				const staging = mkdtempSync(path.join(root, 'pack-'));
				const manifest = { ...readManifest(REPO_ROOT), version };
				writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
				for (const file of ['README.md', 'LICENSE'])
					cpSync(path.join(REPO_ROOT, file), path.join(staging, file));
				cpSync(path.join(REPO_ROOT, 'dist'), path.join(staging, 'dist'), { recursive: true });
				mkdirSync(path.join(staging, 'out'));
				await runNpm(
					['pack', '--ignore-scripts', '--pack-destination', 'out', '--silent'],
					staging,
					`packing ${manifest.name}@${version}`,
				);
				await runNpm(
					[
						'publish',
						path.join(staging, 'out', `${manifest.name}-${version}.tgz`),
						`--registry=${url}/`,
						`--userconfig=${userconfig}`,
						'--ignore-scripts',
						'--access=public',
						// a first version is `latest`; an older one than the newest would need a tag of its own
						'--tag=latest',
					],
					staging,
					`publishing ${manifest.name}@${version}`,
				);
				rmSync(staging, { recursive: true, force: true });
				log(`published ${manifest.name}@${version} to ${url}`);
			},
			latestVersion: async (name) => {
				const response = await fetch(`${url}/${encodeURIComponent(name)}`, {
					signal: AbortSignal.timeout(10_000),
				});
				if (response.status === 404) return undefined;
				const packument = (await response.json()) as { 'dist-tags'?: Record<string, string> };
				return packument['dist-tags']?.latest;
			},
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
