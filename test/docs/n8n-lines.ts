/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports, no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { e2eCacheRoot, E2E_N8N_VERSIONS } from '../e2e/versions';

/**
 * What an n8n line shows and reads, taken from the installed application: the English texts of
 * its editor (menus, buttons, tabs) and the environment variables it reads. The documentation
 * names menu paths, buttons and variables; each must be one of the line it is written for.
 * Jest cannot count on an installed n8n (CI provisions it while the unit tests run), so the
 * texts the documents name are kept in n8n-lines-recorded.json, written from the installed lines by
 * `npx ts-node --transpile-only test/docs/n8n-lines.ts` and compared with them by the browser
 * test (`npm run test:browser`), which runs on both lines.
 */

export const N8N_LINES_FILE = join(__dirname, 'n8n-lines-recorded.json');

/** Per version: editor texts by i18n key, and the environment variables n8n reads. */
export type N8nLines = Record<string, { texts: string[]; variables: string[] }>;

export const N8N_LINES: N8nLines = JSON.parse(readFileSync(N8N_LINES_FILE, 'utf8')) as N8nLines;

/** The current line (2.x) first; documents speak of the other as "n8n 1.x". */
export const [CURRENT_LINE, PREVIOUS_LINE] = E2E_N8N_VERSIONS;

function installDir(version: string): string {
	return join(e2eCacheRoot(), `n8n-${version}`, 'node_modules');
}

export function isInstalled(version: string): boolean {
	return existsSync(join(installDir(version), 'n8n-editor-ui', 'dist', 'assets'));
}

/** A JavaScript string literal's escapes, read leniently (bundles keep raw line breaks in some). */
function unescape(text: string): string {
	return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_all, code: string) =>
		code.length > 1
			? String.fromCharCode(parseInt(code.slice(1), 16))
			: ({ n: '\n', t: '\t', r: '\r' }[code] ?? code),
	);
}

/** Every English text of the installed editor, by key (2.x bundles them as `key: \`text\``, 1.x as JSON). */
export function editorTexts(version: string): Record<string, string> {
	const assets = join(installDir(version), 'n8n-editor-ui', 'dist', 'assets');
	const texts: Record<string, string> = {};
	for (const file of readdirSync(assets).filter((name) => name.endsWith('.js'))) {
		const source = readFileSync(join(assets, file), 'utf8');
		if (!source.includes('"ndv.execute.fetchEvent"')) continue;
		for (const match of source.matchAll(
			/"([a-zA-Z0-9_.-]+)":\s*(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)/g,
		))
			texts[match[1]] = match[2] !== undefined ? unescape(match[2]) : match[3];
	}
	return texts;
}

/** The environment variables the installed n8n reads: its configuration's and process.env's. */
export function environmentVariables(version: string): string[] {
	const found = new Set<string>();
	const scan = (folder: string) => {
		if (!existsSync(folder)) return;
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const path = join(folder, entry.name);
			if (entry.isDirectory()) scan(path);
			else if (entry.name.endsWith('.js')) {
				const source = readFileSync(path, 'utf8');
				for (const match of source.matchAll(
					/Env\)\('([A-Z][A-Z0-9_]+)'|process\.env\.([A-Z][A-Z0-9_]+)|process\.env\[['"]([A-Z][A-Z0-9_]+)['"]\]|_ENV = ['"]([A-Z][A-Z0-9_]+)['"]/g,
				))
					found.add(match[1] ?? match[2] ?? match[3] ?? match[4]);
			}
		}
	};
	for (const folder of ['n8n/dist', '@n8n/config/dist', 'n8n-core/dist'])
		scan(join(installDir(version), folder));
	return [...found].sort();
}

/** The display names of the nodes the installed n8n ships (n8n-nodes-base and its AI nodes). */
export function nodeDisplayNames(version: string): string[] {
	return ['n8n-nodes-base', '@n8n/n8n-nodes-langchain'].flatMap((folder) => {
		const file = join(installDir(version), folder, 'dist', 'types', 'nodes.json');
		if (!existsSync(file)) return [];
		return (JSON.parse(readFileSync(file, 'utf8')) as Array<{ displayName: string }>).map(
			(node) => node.displayName,
		);
	});
}

/** What the installed line shows and reads, to compare the documents' names with. */
export function installedLine(version: string): { texts: Set<string>; variables: Set<string> } {
	return {
		texts: new Set([...Object.values(editorTexts(version)), ...nodeDisplayNames(version)]),
		variables: new Set(environmentVariables(version)),
	};
}

/**
 * Writes n8n-lines-recorded.json from the installed lines: of the names the documents give, the ones each
 * line shows, and of the variables they name, the ones each line reads.
 */
function writeN8nLines(): void {
	// Loaded here, not at the top: the names load the nodes and read the documents, which the
	// browser test (this file's other user) does not need.
	const { namedInDocuments, n8nWords, quotedNamesInSource } =
		require('./names') as typeof import('./names');
	const { USER_DOCS } = require('./markdown') as typeof import('./markdown');
	const named = namedInDocuments(USER_DOCS);
	const lines: N8nLines = {};
	for (const version of E2E_N8N_VERSIONS) {
		if (!isInstalled(version))
			throw new Error(`n8n ${version} is not installed: run scripts/e2e/provide-n8n.sh ${version}`);
		const installed = installedLine(version);
		const words = new Set([
			...named.filter((item) => item.kind !== 'variable').flatMap(n8nWords),
			...quotedNamesInSource().map((quoted) => quoted.name),
		]);
		const variables = new Set(
			named.filter((item) => item.kind === 'variable').map((item) => item.text),
		);
		lines[version] = {
			texts: [...words].filter((word) => installed.texts.has(word)).sort(),
			variables: [...variables].filter((variable) => installed.variables.has(variable)).sort(),
		};
	}
	writeFileSync(N8N_LINES_FILE, `${JSON.stringify(lines, null, '\t')}\n`);
	console.log(`wrote ${N8N_LINES_FILE}`);
}

if (require.main === module) writeN8nLines();
