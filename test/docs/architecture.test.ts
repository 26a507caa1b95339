/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: reads the package's sources in Node, never shipped */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { processMemorySizes } from '../../nodes/shared/state/processMemory';
import type { Doc, Table } from './markdown';
import {
	ARCHITECTURE,
	at,
	codeSpans,
	DESIGN_DOCS,
	parseDoc,
	proseLines,
	ROOT,
	tables,
} from './markdown';

/**
 * docs/ARCHITECTURE.md (and docs/design/) against the code: every path they name exists; the
 * state table names exactly the stores the code defines, with their static data keys and
 * `StoreKind` names; the process-memory tables name exactly what processMemory.ts registers and
 * every other map or set a module keeps.
 * The source is read as text, so a store added to the code and not to the page fails here.
 */

const NODES = join(ROOT, 'nodes');

function sources(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sources(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

const SOURCES = sources(NODES).map((path) => ({
	file: relative(ROOT, path),
	text: readFileSync(path, 'utf8'),
}));

/** Folders a path may be written from (a root-anchored path starts with one of these). */
const ROOT_FOLDERS = ['nodes', 'test', 'credentials', 'bench', 'docs', 'examples', 'scripts'];
/** Folders a short path in the trigger's or the shared sections is written relative to. */
const CODE_FOLDERS = readdirSync(NODES).map((name) => `nodes/${name}`);

/** A code span that names a file or folder: it ends with a slash or a file extension. */
function isPath(span: string): boolean {
	return !/\s/.test(span) && (/\/$/.test(span) || /^[\w./<>-]+\.(ts|json|md|js)$/.test(span));
}

/** Whether a path exists; `<placeholder>` segments match any name. */
function pathExists(path: string): boolean {
	if (!path.includes('<')) return existsSync(join(ROOT, path));
	const parts = path.split('/');
	const matches = (base: string, index: number): boolean => {
		if (index === parts.length) return existsSync(join(ROOT, base));
		const part = parts[index];
		if (!part.includes('<')) return matches(join(base, part), index + 1);
		if (!existsSync(join(ROOT, base)) || !statSync(join(ROOT, base)).isDirectory()) return false;
		const pattern = new RegExp(`^${part.replace(/\./g, '\\.').replace(/<[^>]+>/g, '[^/]+')}$`);
		return readdirSync(join(ROOT, base))
			.filter((name) => pattern.test(name))
			.some((name) => matches(join(base, name), index + 1));
	};
	return matches('', 0);
}

function pathProblems(doc: Doc): string[] {
	const problems: string[] = [];
	for (const { line, text } of proseLines(doc)) {
		const spans = codeSpans(text).filter(isPath);
		const anchored = spans.filter((span) => ROOT_FOLDERS.includes(span.split('/')[0]));
		const bases = [
			...anchored.filter((span) => span.endsWith('/')),
			...anchored.map((span) => span.replace(/[^/]*$/, '')),
			...CODE_FOLDERS.map((folder) => `${folder}/`),
		];
		for (const span of spans) {
			const found = ROOT_FOLDERS.includes(span.split('/')[0])
				? pathExists(span)
				: bases.some((base) => pathExists(`${base}${span}`));
			if (!found) problems.push(`${at(doc, line)}: \`${span}\` does not exist`);
		}
	}
	return problems;
}

/**
 * The stores the code defines: each `new StoreKind<…>({ key, name })` or `new StaticStore<…>(…)`,
 * read from the source.
 */
function storeKinds(): Array<{ file: string; key: string; name: string; kind: string }> {
	const constant = (identifier: string) => {
		for (const { text } of SOURCES) {
			const match = new RegExp(`export const ${identifier} = '([^']+)'`).exec(text);
			if (match) return match[1];
		}
		throw new Error(`no string constant ${identifier} in nodes/`);
	};
	return SOURCES.flatMap(({ file, text }) =>
		[...text.matchAll(/new (StoreKind|StaticStore)<[^>]*>\(\s*\{([\s\S]*?)\n\s*\},?\s*\)/g)].map(
			([, kind, body]) => {
				const key = /\bkey: (?:'([^']+)'|(\w+))/.exec(body);
				const name = /\bname: '([^']+)'/.exec(body);
				if (!key || !name) throw new Error(`${file}: a ${kind} without key or name`);
				return { file, key: key[1] ?? constant(key[2]), name: name[1], kind };
			},
		),
	);
}

function column(doc: Doc, table: Table, header: RegExp): number {
	const index = table.header.findIndex((cell) => header.test(cell));
	if (index < 0) throw new Error(`${at(doc, table.line)}: no column ${header}`);
	return index;
}

/** An empty `new Map<…>()`, `WeakMap`, `Set` or `WeakSet` at the top of a module (tables built from constants are not memory). */
const MODULE_MAP = /^const (\w+) = new (?:Map|WeakMap|Set|WeakSet)<.*>\(\);\n(.{0,40})/gm;

/** Module-level maps not registered as per-node memory (by a registration naming them or right after them). */
function unregisteredModuleMaps(): string[] {
	const modules = SOURCES.filter(({ file }) => !file.endsWith('processMemory.ts')); // the registry itself
	return modules.flatMap(({ text }) =>
		[...text.matchAll(MODULE_MAP)]
			.filter(
				([, name, next]) =>
					!new RegExp(`registerNodeMemory\\([^;]*\\b${name}\\b`, 's').test(text) &&
					!next.startsWith('registerNodeMemory('),
			)
			.map(([, name]) => name),
	);
}

/** The table that follows the prose line naming `marker`. */
function tableAfter(marker: string): Table {
	const markerLine = proseLines(ARCHITECTURE).find(({ text }) => text.includes(marker))?.line;
	const table = tables(ARCHITECTURE).find((candidate) => candidate.line > (markerLine ?? Infinity));
	if (!table) throw new Error(`docs/ARCHITECTURE.md: no table after "${marker}"`);
	return table;
}

const firstSpan = (cell: string) => codeSpans(cell)[0];

/** What the state table gets wrong: a store missing or extra, a key, a kind or a file not the code's. */
function stateTableProblems(doc: Doc): string[] {
	const table = tables(doc).find((candidate) =>
		candidate.header.some((cell) => /static data key/i.test(cell)),
	);
	if (!table) return [`${doc.file}: no table with a column "Static data key"`];
	const keyColumn = column(doc, table, /static data key/i);
	const nameColumn = column(doc, table, /kind and name/i);
	const rows = table.rows.map((row) => ({
		line: row.line,
		source: codeSpans(row.cells[0]).find(isPath),
		key: firstSpan(row.cells[keyColumn]),
		kind: /\b(StoreKind|StaticStore)\b/.exec(row.cells[nameColumn])?.[1],
		name: codeSpans(row.cells[nameColumn]).find((span) => !/^(StoreKind|StaticStore)$/.test(span)),
	}));
	const expected = storeKinds();
	const problems = [
		...expected
			.filter((store) => !rows.some((row) => row.name === store.name))
			.map((store) => `${doc.file}: no row for \`${store.name}\` (${store.file})`),
		...rows
			.filter((row) => !expected.some((store) => store.name === row.name))
			.map((row) => `${at(doc, row.line)}: \`${row.name ?? '(no name)'}\` is no store of the code`),
	];
	for (const store of expected) {
		const row = rows.find((candidate) => candidate.name === store.name);
		if (!row) continue;
		const where = at(doc, row.line);
		if (row.key !== store.key)
			problems.push(
				`${where}: \`${store.name}\` is kept under \`${store.key}\`, the table says \`${row.key ?? '(none)'}\``,
			);
		if (row.kind !== store.kind)
			problems.push(
				`${where}: \`${store.name}\` is a ${store.kind}, the table says ${row.kind ?? '(none)'}`,
			);
		if (row.source !== store.file)
			problems.push(
				`${where}: \`${store.name}\` is defined in ${store.file}, the table names ${row.source ?? 'no file'}`,
			);
	}
	return problems;
}

/** The shipped folders: every folder of nodes/ and credentials/ that holds a source file. */
function shippedFolders(): string[] {
	const files = [...sources(NODES), ...sources(join(ROOT, 'credentials'))];
	return [...new Set(files.map((path) => relative(ROOT, path).replace(/[^/]*$/, '')))].sort();
}

/** What the test map gets wrong: a shipped folder without its row, a row for no such folder, a row naming no test. */
function testMapProblems(doc: Doc): string[] {
	const table = tables(doc).find((candidate) => /shipped folder/i.test(candidate.header[0]));
	if (!table) return [`${doc.file}: no table with a column "Shipped folder"`];
	const rows = table.rows.map((row) => ({
		line: row.line,
		folder: firstSpan(row.cells[0]),
		tests: codeSpans(row.cells[1]).filter((span) => span.startsWith('test/')),
	}));
	const folders = shippedFolders();
	return [
		...folders
			.filter((folder) => !rows.some((row) => row.folder === folder))
			.map((folder) => `${doc.file}: no row for \`${folder}\``),
		...rows
			.filter((row) => !folders.includes(row.folder))
			.map((row) => `${at(doc, row.line)}: \`${row.folder}\` is no shipped folder`),
		...rows
			.filter((row) => row.tests.length === 0)
			.map((row) => `${at(doc, row.line)}: \`${row.folder}\` names no test`),
	];
}

describe('docs/ARCHITECTURE.md against the code', () => {
	it.each([ARCHITECTURE, ...DESIGN_DOCS].map((doc) => [doc.file, doc] as const))(
		'every path %s names exists',
		(_file, doc) => {
			expect(pathProblems(doc)).toEqual([]);
		},
	);

	it('names paths (the check is not vacuous)', () => {
		const named = proseLines(ARCHITECTURE).flatMap(({ text }) => codeSpans(text).filter(isPath));
		expect(named.length).toBeGreaterThan(80);
	});

	it('the state table names every store the code defines, by name, key, kind and file', () => {
		expect(storeKinds().length).toBeGreaterThanOrEqual(7);
		expect(stateTableProblems(ARCHITECTURE)).toEqual([]);
	});

	it('catches a path that does not exist, a store left out, a wrong name and a wrong kind', () => {
		const planted = parseDoc(
			'planted.md',
			'`nodes/shared/state/nodeStore.ts`, `runs/queue.ts`, `nodes/shared/nope.ts`, `runs/nope.ts`\n',
		);
		expect(pathProblems(planted)).toEqual([
			'planted.md:1: `nodes/shared/nope.ts` does not exist',
			'planted.md:1: `runs/nope.ts` does not exist',
		]);
		const text = ARCHITECTURE.lines.join('\n');
		const withoutRow = text.replace(/^\| Runs in flight .*\n/m, '');
		expect(stateTableProblems(parseDoc('planted.md', withoutRow))).toEqual([
			expect.stringContaining('no row for `runsInFlight`'),
		]);
		const misnamed = text.replace('`StoreKind` `runsInFlight` |', '`StoreKind` `inFlightRuns` |');
		expect(stateTableProblems(parseDoc('planted.md', misnamed))).toEqual([
			expect.stringContaining('no row for `runsInFlight`'),
			expect.stringContaining('`inFlightRuns` is no store of the code'),
		]);
		const wrongKind = text.replace(
			'`StoreKind` `runsInFlight` |',
			'`StaticStore` `runsInFlight` |',
		);
		expect(stateTableProblems(parseDoc('planted.md', wrongKind))).toEqual([
			expect.stringContaining('`runsInFlight` is a StoreKind, the table says StaticStore'),
		]);
	});

	it('the test map has a row for each shipped folder, naming its tests', () => {
		expect(shippedFolders()).toHaveLength(21);
		expect(testMapProblems(ARCHITECTURE)).toEqual([]);
		const text = ARCHITECTURE.lines.join('\n');
		const withoutRow = text.replace(/^\| `nodes\/shared\/state\/` .*\n/m, '');
		expect(testMapProblems(parseDoc('planted.md', withoutRow))).toEqual([
			'planted.md: no row for `nodes/shared/state/`',
		]);
	});

	it('the process-memory tables name what processMemory.ts registers once the nodes are loaded, and every other module-level map', () => {
		expect([PartnerLeads, PartnerLeadsTrigger, PartnerLeadsPollingTrigger]).toHaveLength(3);
		const names = (table: Table) => table.rows.map((row) => firstSpan(row.cells[0])).sort();
		expect({
			perNode: names(tableAfter('processMemorySizes()')),
			perProcess: names(tableAfter('module-level maps')),
		}).toEqual({
			perNode: Object.keys(processMemorySizes()).sort(),
			perProcess: unregisteredModuleMaps().sort(),
		});
	});
});
