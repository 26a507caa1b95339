/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Builds our package (`npm run build` → dist/) and checks that every file n8n will load exists. */
import path from 'node:path';

import { assertBuilt } from './extension';
import { exitWithin, startProcess } from './processes';
import { log } from './report';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export async function buildPackage(timeoutMs: number): Promise<void> {
	log('building the package (npm run build)');
	const started = startProcess('npm', ['run', 'build', '--silent'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	const outcome = await exitWithin(started, timeoutMs);
	if (outcome === 'timeout') {
		throw new Error(`npm run build did not finish within ${Math.round(timeoutMs / 1000)} s`);
	}
	if (outcome !== 0) throw new Error(`npm run build failed (exit ${outcome})`);
	assertBuilt(REPO_ROOT);
}
