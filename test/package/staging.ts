/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** What `npm run build` reads and `npm pack` looks at; nothing else of the checkout. */
const BUILD_INPUTS = [
	'package.json',
	'README.md',
	'LICENSE',
	'.npmrc',
	'.gitignore',
	'tsconfig.json',
	'tsconfig.build.json',
	'gulpfile.js',
	'icons',
	'credentials',
	'nodes',
];

export interface PackedFile {
	path: string;
	size: number;
}

export interface Staging {
	dir: string;
	files: PackedFile[];
	remove(): void;
}

function run(command: string, args: string[], cwd: string): string {
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- a test running our own build, never shipped
	return execFileSync(command, args, {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		timeout: 120_000,
	});
}

/**
 * Builds the package with its own `npm run build` in a copy of the checkout and lists what
 * `npm pack` would publish. The copy keeps this test from racing anything else that
 * builds into or reads the checkout's dist/ at the same time.
 */
export function stageAndPack(): Staging {
	const dir = mkdtempSync(join(tmpdir(), 'partner-leads-pack-'));
	const remove = () => rmSync(dir, { recursive: true, force: true });
	try {
		for (const input of BUILD_INPUTS) {
			const source = join(REPO_ROOT, input);
			if (existsSync(source)) cpSync(source, join(dir, input), { recursive: true });
		}
		symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
		run('npm', ['run', '--silent', 'build'], dir);
		const [packed] = JSON.parse(
			run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], dir),
		) as Array<{ files: PackedFile[] }>;
		return { dir, files: packed.files, remove };
	} catch (error) {
		remove();
		throw error;
	}
}
