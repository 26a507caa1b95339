/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Runs scripts/e2e/provide-n8n.sh (bounded) and returns where the n8n runtime of each version is. */
import path from 'node:path';

import { exitWithin, startProcess } from './processes';
import { log } from './report';

export interface N8nRuntime {
	version: string;
	/** the Node binary n8n runs on (24, or N8N_E2E_NODE_SPEC's major) */
	node: string;
	/** n8n's bin script (run with `node`) */
	n8nBin: string;
}

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = path.join(REPO_ROOT, 'scripts', 'e2e', 'provide-n8n.sh');

/**
 * Provides every version in one call (the script installs what is missing and reuses its cache).
 * Its own progress goes to our stderr; its stdout lines `N8N_E2E_RUNTIME <version> <node> <bin>` are parsed.
 */
export async function provideRuntimes(
	versions: string[],
	timeoutMs: number,
): Promise<Map<string, N8nRuntime>> {
	log(`providing n8n ${versions.join(', ')} (cached outside the repository)`);
	const stdout = await runProvideScript(SCRIPT, versions, timeoutMs, 'provisioning n8n');

	const runtimes = new Map<string, N8nRuntime>();
	for (const line of stdout.split('\n')) {
		const [tag, version, node, n8nBin] = line.trim().split(' ');
		if (tag === 'N8N_E2E_RUNTIME' && version && node && n8nBin)
			runtimes.set(version, { version, node, n8nBin });
	}
	for (const version of versions) {
		if (!runtimes.has(version))
			throw new Error(`provisioning reported no runtime for n8n ${version}`);
	}
	return runtimes;
}

/**
 * Runs one of scripts/e2e/provide-*.sh, bounded: its progress goes to our stderr, its stdout (the
 * lines that say what it provided) is returned. `what` names it in the error of a failure.
 */
export async function runProvideScript(
	script: string,
	args: string[],
	timeoutMs: number,
	what: string,
): Promise<string> {
	const started = startProcess('bash', [script, ...args], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	started.child.stdout?.on('data', (chunk: Buffer) => {
		stdout += chunk.toString('utf8');
	});
	const outcome = await exitWithin(started, timeoutMs);
	if (outcome === 'timeout')
		throw new Error(`${what} did not finish within ${Math.round(timeoutMs / 1000)} s (${script})`);
	if (outcome !== 0)
		throw new Error(
			`${what} failed (exit ${outcome}); see the [${path.basename(script, '.sh')}] lines above`,
		);
	return stdout;
}
