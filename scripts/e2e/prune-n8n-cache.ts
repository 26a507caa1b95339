/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * Lists the n8n runtimes cached for the e2e suite (2-3 GB each) and, with --yes, removes those of
 * versions the suite no longer uses. Node 24 and the versions in use are kept.
 *
 *   npx ts-node --transpile-only scripts/e2e/prune-n8n-cache.ts [--yes]
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

import { E2E_N8N_VERSIONS, e2eCacheRoot } from '../../test/e2e/versions';

function main(): void {
	const root = e2eCacheRoot();
	const remove = process.argv.includes('--yes');
	if (!existsSync(root)) {
		console.log(`no e2e cache at ${root}`);
		return;
	}
	const inUse = new Set(E2E_N8N_VERSIONS.map((version) => `n8n-${version}`));
	const stale = readdirSync(root, { withFileTypes: true })
		.filter(
			(entry) => entry.isDirectory() && entry.name.startsWith('n8n-') && !inUse.has(entry.name),
		)
		.map((entry) => path.join(root, entry.name));
	console.log(
		`e2e cache ${root}: in use ${[...inUse].join(', ')}; stale: ${stale.length ? stale.join(', ') : 'none'}`,
	);
	if (stale.length === 0) return;
	if (!remove) {
		console.log('run again with --yes to remove the stale folders');
		return;
	}
	for (const folder of stale) {
		rmSync(folder, { recursive: true, force: true });
		console.log(`removed ${folder}`);
	}
}

main();
