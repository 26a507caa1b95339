/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Puts our built package where n8n loads community packages: `<user folder>/.n8n/nodes/node_modules/<name>`.
 *
 * Read from both lines' sources (n8n/dist/load-nodes-and-credentials.js, community-packages module,
 * n8n-core scanDirectoryForPackages): packages named `n8n-nodes-*` in that folder are loaded with
 * their package.json `n8n` attribute, and their node types are named `<package name>.<node name>`,
 * exactly as for a package a user installs from npm. Folders listed in N8N_CUSTOM_EXTENSIONS are
 * loaded file by file (every `*.node.js`) under the package name `CUSTOM`, which would rename our
 * types to `CUSTOM.partnerLeads`; so that route is not used.
 */
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface PackageManifest {
	name: string;
	n8n: { nodes?: string[]; credentials?: string[] };
}

export function readManifest(packageDir: string): PackageManifest {
	const manifest = JSON.parse(
		readFileSync(path.join(packageDir, 'package.json'), 'utf8'),
	) as PackageManifest;
	if (!manifest.n8n) throw new Error(`${packageDir}/package.json has no "n8n" attribute`);
	return manifest;
}

/** Every file the `n8n` attribute lists; throws naming the missing ones (e.g. no `npm run build`). */
export function assertBuilt(packageDir: string): PackageManifest {
	const manifest = readManifest(packageDir);
	const listed = [...(manifest.n8n.nodes ?? []), ...(manifest.n8n.credentials ?? [])];
	const missing = listed.filter((file) => !existsSync(path.join(packageDir, file)));
	if (listed.length === 0)
		throw new Error('the package.json "n8n" attribute lists no nodes or credentials');
	if (missing.length > 0) {
		throw new Error(
			`the build output is missing ${missing.join(', ')} (did \`npm run build\` succeed?)`,
		);
	}
	return manifest;
}

export function communityPackagesFolder(userFolder: string): string {
	return path.join(userFolder, '.n8n', 'nodes', 'node_modules');
}

/** Copies package.json and dist/ of a built package into the user folder's community packages. */
export function installPackageInto(userFolder: string, packageDir: string): string {
	const manifest = assertBuilt(packageDir);
	const target = path.join(communityPackagesFolder(userFolder), manifest.name);
	mkdirSync(target, { recursive: true });
	cpSync(path.join(packageDir, 'package.json'), path.join(target, 'package.json'));
	cpSync(path.join(packageDir, 'dist'), path.join(target, 'dist'), { recursive: true });
	return target;
}
