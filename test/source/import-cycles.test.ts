/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: reads the package's sources in Node, never shipped */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * No import cycle in the shipped code, between files or between folders (a folder and its
 * subfolder count as two): a reader can follow the code one way, and a module never starts
 * before one it needs. Type-only imports count too, since a reader follows them the same way.
 */

const ROOT = join(__dirname, '..', '..');
const SHIPPED = ['nodes', 'credentials'];

type Graph = Map<string, Set<string>>;

function sources(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sources(path);
		return name.endsWith('.ts') ? [relative(ROOT, path)] : [];
	});
}

/** The file a relative import names, if it is one of ours. */
function resolved(from: string, specifier: string): string | undefined {
	const target = normalize(join(dirname(from), specifier));
	return [`${target}.ts`, join(target, 'index.ts')].find((file) => existsSync(join(ROOT, file)));
}

function fileGraph(files: string[]): Graph {
	const graph: Graph = new Map();
	for (const file of files) {
		const text = readFileSync(join(ROOT, file), 'utf8');
		const specifiers = [...text.matchAll(/(?:from|import)\s+['"](\.{1,2}\/[^'"]+)['"]/g)].map(
			(match) => match[1],
		);
		graph.set(file, new Set(specifiers.flatMap((specifier) => resolved(file, specifier) ?? [])));
	}
	return graph;
}

function folderGraph(files: Graph): Graph {
	const graph: Graph = new Map();
	for (const [file, imports] of files) {
		const from = dirname(file);
		const edges = graph.get(from) ?? new Set<string>();
		for (const imported of imports) if (dirname(imported) !== from) edges.add(dirname(imported));
		graph.set(from, edges);
	}
	return graph;
}

/** The groups of nodes that reach each other (strongly connected, more than one node). */
function cycles(graph: Graph): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	let next = 0;
	const visit = (node: string): void => {
		index.set(node, next);
		low.set(node, next++);
		stack.push(node);
		onStack.add(node);
		for (const target of graph.get(node) ?? []) {
			if (!index.has(target)) {
				visit(target);
				low.set(node, Math.min(low.get(node)!, low.get(target)!));
			} else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
		}
		if (low.get(node) !== index.get(node)) return;
		const group: string[] = [];
		let member: string;
		do {
			member = stack.pop()!;
			onStack.delete(member);
			group.push(member);
		} while (member !== node);
		if (group.length > 1) found.push(group.sort());
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}

const FILES = fileGraph(SHIPPED.flatMap((folder) => sources(join(ROOT, folder))));

describe('no import cycle in the shipped code', () => {
	it('reads every shipped file and its imports: each is reached from the entry points n8n loads', () => {
		const { n8n } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[]; credentials: string[] };
		};
		const reached = new Set(
			[...n8n.nodes, ...n8n.credentials].map((built) =>
				built.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
			),
		);
		for (const file of reached) for (const imported of FILES.get(file) ?? []) reached.add(imported);
		expect(reached.size).toBeGreaterThan(4);
		expect([...reached].sort()).toEqual([...FILES.keys()].sort());
	});

	it('between files', () => {
		expect(cycles(FILES)).toEqual([]);
	});

	it('between folders (a folder and its subfolder count as two)', () => {
		expect(cycles(folderGraph(FILES))).toEqual([]);
	});

	it('would find one', () => {
		const graph: Graph = new Map([
			['a/x.ts', new Set(['a/b/y.ts'])],
			['a/b/y.ts', new Set(['a/z.ts'])],
			['a/z.ts', new Set<string>()],
		]);
		expect(cycles(graph)).toEqual([]);
		expect(cycles(folderGraph(graph))).toEqual([['a', 'a/b']]);
		graph.get('a/z.ts')!.add('a/b/y.ts');
		expect(cycles(graph)).toEqual([['a/b/y.ts', 'a/z.ts']]);
	});
});
