/** Builds our package (`npm run build` → dist/) and checks that every file n8n will load exists. */
import path from 'node:path';

import { assertBuilt } from './extension';
import { startProcess, stopProcess } from './processes';
import { log } from './report';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export async function buildPackage(timeoutMs: number): Promise<void> {
	log('building the package (npm run build)');
	const started = startProcess('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<'timeout'>((resolve) => {
		timer = setTimeout(() => resolve('timeout'), timeoutMs);
	});
	const outcome = await Promise.race([started.exited, timedOut]);
	clearTimeout(timer);
	if (outcome === 'timeout') {
		await stopProcess(started, 5_000);
		throw new Error(`npm run build did not finish within ${Math.round(timeoutMs / 1000)} s`);
	}
	if (outcome !== 0) throw new Error(`npm run build failed (exit ${outcome})`);
	assertBuilt(REPO_ROOT);
}
