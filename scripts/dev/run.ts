/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npm run dev`: the real n8n editor with this package from the working tree, one command away.
 *
 * Builds the package, provides n8n (cached as the e2e suite does), starts the simulator and n8n
 * (port 5678 when free), creates an owner, a credential for the simulator and imports examples/,
 * then prints the address and the login. `tsc --watch` rebuilds on change; after each clean
 * build n8n is restarted with the new build (it loads community packages only at startup).
 * Ctrl-C stops everything. `npm run dev -- --check` starts it, checks it (also one reload), stops.
 *
 *   N8N_DEV_VERSION  n8n version (default: the newest the e2e suite tests)
 *   N8N_DEV_PORT     preferred port (default 5678; a free one when it is taken)
 */
import assert from 'node:assert/strict';
import path from 'node:path';

import { buildPackage, REPO_ROOT } from '../../test/e2e/lib/build-package';
import {
	killAllNow,
	startProcess,
	stopProcess,
	type StartedProcess,
} from '../../test/e2e/lib/processes';
import { provideRuntimes } from '../../test/e2e/lib/provision';
import { credentialData } from '../../test/e2e/lib/service';
import { E2E_N8N_VERSIONS } from '../../test/e2e/versions';
import { startDevSession, type DevSession } from './session';

const CHECK = process.argv.includes('--check');
const VERSION = process.env.N8N_DEV_VERSION || E2E_N8N_VERSIONS[0];
const PORT = Number(process.env.N8N_DEV_PORT) > 0 ? Number(process.env.N8N_DEV_PORT) : 5678;
/** Bound of `--check` (start, checks, one reload, stop), provisioning excluded. */
const CHECK_LIMIT_MS = 10 * 60_000;

const say = (line: string) => console.log(`[dev] ${line}`);

function banner(session: DevSession): string {
	return [
		'',
		`  n8n ${session.n8n.version} is running with n8n-nodes-partner-leads from ${REPO_ROOT}`,
		`  Editor:     ${session.n8n.baseUrl}/`,
		`  Login:      ${session.login.email} / ${session.login.password}`,
		`  Credential: "${session.credential.name}" (the simulator at ${session.sim.url})`,
		`  Workflows:  ${session.workflows.map((workflow) => workflow.name).join('; ')}`,
		'  Edit nodes/ or credentials/: the package is rebuilt and n8n restarts with it. Ctrl-C stops.',
		'',
	].join('\n');
}

/** The session as a newcomer would find it: our nodes, the credential, the examples. */
async function checkSession(session: DevSession): Promise<void> {
	const nodes = await session.rest.nodeTypeNames();
	assert.ok(
		nodes.includes('n8n-nodes-partner-leads.partnerLeads'),
		'n8n did not load the Partner Referral Service node',
	);
	const credentials = await session.rest.credentials();
	assert.ok(
		credentials.some(
			(credential) =>
				credential.id === session.credential.id && credential.type === 'partnerLeadsApi',
		),
		`the credential "${session.credential.name}" is not stored in n8n`,
	);
	const test = await session.rest.testCredential({
		...session.credential,
		type: 'partnerLeadsApi',
		data: credentialData(session.sim),
	});
	assert.equal(
		test.status,
		'OK',
		`the simulator credential does not pass n8n's test: ${test.message}`,
	);
	const names = await session.rest.workflowNames();
	for (const { name } of session.workflows)
		assert.ok(names.includes(name), `the example workflow "${name}" was not imported`);
}

/** tsc --watch; after each build without errors, `onBuilt` (the first build is the one already done). */
function watchBuild(onBuilt: () => void): StartedProcess {
	const tsc = startProcess(
		process.execPath,
		[
			path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
			'-p',
			'tsconfig.build.json',
			'--watch',
			'--preserveWatchOutput',
		],
		{
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	let first = true;
	tsc.child.stdout?.on('data', (chunk: Buffer) => {
		for (const line of chunk.toString('utf8').split('\n')) {
			const found = /Found (\d+) errors?/.exec(line);
			if (!found) {
				if (line.includes('error TS')) console.log(line);
				continue;
			}
			if (first) {
				first = false;
				continue;
			}
			if (found[1] === '0') onBuilt();
			else say(`the build has ${found[1]} errors (above); n8n keeps running the last good build`);
		}
	});
	return tsc;
}

async function main(): Promise<void> {
	await buildPackage(5 * 60_000);
	const runtime = (await provideRuntimes([VERSION], 35 * 60_000)).get(VERSION)!;
	say(`starting the simulator and n8n ${VERSION}`);
	const session = await startDevSession({ runtime, port: CHECK ? undefined : PORT, log: say });
	const watcher: { tsc?: StartedProcess } = {};
	let stopping = false;
	const stopAll = async (code: number) => {
		if (stopping) return;
		stopping = true;
		say('stopping');
		if (watcher.tsc) await stopProcess(watcher.tsc, 5_000);
		await session.stop();
		killAllNow();
		process.exit(code);
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => void stopAll(0));

	if (CHECK) {
		const bound = setTimeout(() => {
			console.error(`[dev] --check did not finish within ${CHECK_LIMIT_MS / 60_000} minutes`);
			void stopAll(1);
		}, CHECK_LIMIT_MS);
		try {
			await checkSession(session);
			say('reloading once, as after a rebuild');
			await session.reload();
			await checkSession(session);
			say(
				`dev check passed: n8n ${VERSION} at ${session.n8n.baseUrl} had our nodes, the credential and ${session.workflows.length} example workflows, also after a reload`,
			);
			clearTimeout(bound);
			await stopAll(0);
		} catch (error) {
			console.error(
				`[dev] check failed: ${error instanceof Error ? error.message : String(error)}`,
			);
			clearTimeout(bound);
			await stopAll(1);
		}
		return;
	}

	console.log(banner(session));
	let reloading: Promise<void> = Promise.resolve();
	watcher.tsc = watchBuild(() => {
		reloading = reloading.then(async () => {
			say('rebuilt; restarting n8n with the new build');
			try {
				await session.reload();
				say(`n8n is back at ${session.n8n.baseUrl}/ (reload the editor page)`);
			} catch (error) {
				say(
					`n8n did not restart: ${error instanceof Error ? error.message : String(error)}; fix and save again, or Ctrl-C`,
				);
			}
		});
	});
}

main().catch((error: unknown) => {
	console.error(`[dev] ${error instanceof Error ? error.message : String(error)}`);
	console.error(
		'[dev] if another program took the port meanwhile, choose one with N8N_DEV_PORT=<port>',
	);
	killAllNow();
	process.exit(1);
});
