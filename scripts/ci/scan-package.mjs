// n8n's verification scan, offline: the checks `npx @n8n/scan-community-package <name>` runs on
// a published package, run here on the checkout before anything is published, so a change that
// would fail n8n's review fails CI first. The published scan lints two things with the same
// rules (its exported `analyzePackage`): the source the package's npm provenance points at
// (package.json and nodes/, credentials/), and the tarball npm serves (its .js files and
// package.json). Here the source is the working tree and the tarball is what `npm pack` makes of
// the built dist/ (run `npm run build` first). Not checked here, because it needs the registry:
// the provenance attestation, which the release workflow's `npm publish --provenance` creates.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What the published scan lints in the tarball. */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

function report(what, result) {
	console.log(
		`${result.passed ? 'passed' : 'FAILED'}: ${what}${result.message ? ` (${result.message})` : ''}`,
	);
	if (result.details) console.log(result.details);
	return result.passed;
}

/** The scan must find a planted violation; otherwise a passing scan would prove nothing. */
async function scanCatchesAPlantedViolation(work) {
	const planted = join(work, 'planted');
	mkdirSync(join(planted, 'nodes', 'Planted'), { recursive: true });
	writeFileSync(join(planted, 'package.json'), '{ "name": "n8n-nodes-planted" }\n');
	writeFileSync(
		join(planted, 'nodes', 'Planted', 'Planted.node.ts'),
		"export const planted = () => console.log('n8n refuses console output in nodes');\n",
	);
	const result = await analyzePackage(planted, SOURCE_FILE_PATTERNS);
	const caught = !result.passed && /no-console/.test(result.details ?? '');
	console.log(`${caught ? 'passed' : 'FAILED'}: the scan finds a planted console.log`);
	if (!caught) console.log(result.details ?? result.message ?? 'the scan passed the planted file');
	return caught;
}

function packTarball(work) {
	if (!existsSync(join(ROOT, 'dist'))) throw new Error('no dist/: run `npm run build` first');
	const tarballs = join(work, 'tarball');
	mkdirSync(tarballs);
	execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', tarballs], {
		cwd: ROOT,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const [tarball] = readdirSync(tarballs).filter((file) => file.endsWith('.tgz'));
	const unpacked = join(work, 'package');
	mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', join(tarballs, tarball), '-C', unpacked, '--strip-components=1']);
	return { tarball, unpacked };
}

const work = mkdtempSync(join(tmpdir(), 'partner-leads-scan-'));
try {
	const { tarball, unpacked } = packTarball(work);
	const results = [
		await scanCatchesAPlantedViolation(work),
		report(
			`source (${SOURCE_FILE_PATTERNS.join(', ')})`,
			await analyzePackage(ROOT, SOURCE_FILE_PATTERNS),
		),
		report(
			`tarball ${tarball} (${TARBALL_FILE_PATTERNS.join(', ')})`,
			await analyzePackage(unpacked, TARBALL_FILE_PATTERNS),
		),
	];
	if (results.includes(false)) {
		console.error(
			"FAIL: n8n's verification scan (@n8n/scan-community-package) would refuse the package.",
		);
		process.exitCode = 1;
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
