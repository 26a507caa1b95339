/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { Staging } from './staging';
import { REPO_ROOT, stageAndPack } from './staging';

/**
 * What n8n installs is what `npm pack` publishes: the paths in package.json's `n8n` block,
 * the icons and codex files next to them, and nothing from tests or scripts.
 */

interface PackageJson {
	name: string;
	homepage: string;
	repository: { url: string };
	keywords: string[];
	dependencies?: Record<string, string>;
	n8n: { n8nNodesApiVersion: number; nodes: string[]; credentials: string[] };
}

interface Codex {
	node: string;
	nodeVersion: string;
	codexVersion: string;
	categories: string[];
	resources: {
		primaryDocumentation: Array<{ url: string }>;
		credentialDocumentation: Array<{ url: string }>;
	};
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson;
const README_BASE = pkg.homepage.replace(/#.*$/, '');

/** Where GitHub shows a file of the repository (the docs pages the codex files link to). */
const FILE_BASE = `${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/`;

/** GitHub's anchors for the headings of a Markdown file (the README by default). */
function readmeAnchors(file = 'README.md'): Set<string> {
	const readme = readFileSync(join(REPO_ROOT, file), 'utf8');
	const anchors = new Set(file === 'README.md' ? ['readme'] : []);
	for (const match of readme.matchAll(/^#{1,6}\s+(.+)$/gm)) {
		anchors.add(
			match[1]
				.trim()
				.toLowerCase()
				.replace(/[^\p{L}\p{N}\s_-]/gu, '')
				.replace(/\s/g, '-'),
		);
	}
	return anchors;
}

/** The one class a compiled node or credential file exports, instantiated. */
function instantiate<T>(file: string): T {
	const exported = Object.values(require(file) as Record<string, new () => T>);
	expect(exported).toHaveLength(1);
	return new exported[0]();
}

function iconPaths(icon: unknown): string[] {
	if (typeof icon === 'string') return [icon];
	if (icon && typeof icon === 'object') return Object.values(icon as Record<string, string>);
	return [];
}

describe('the published package', () => {
	let staging: Staging;
	let packed: Set<string>;

	beforeAll(() => {
		staging = stageAndPack();
		packed = new Set(staging.files.map((file) => file.path));
	}, 180_000);

	afterAll(() => staging?.remove());

	/** Every icon a description names must be in the tarball, relative to the file that names it. */
	function expectIcons(file: string, icon: unknown) {
		const paths = iconPaths(icon);
		expect(paths.length).toBeGreaterThan(0);
		for (const reference of paths) {
			expect(reference).toMatch(/^file:/);
			expect(packed).toContain(posix.join(posix.dirname(file), reference.slice('file:'.length)));
		}
	}

	it('holds only dist/, README.md, LICENSE and package.json', () => {
		const outside = [...packed].filter(
			(path) =>
				!path.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(path),
		);
		expect(outside).toEqual([]);
		expect(packed).toContain('README.md');
		expect(packed).toContain('LICENSE');
		expect(
			[...packed].filter(
				(path) => /^dist\/(test|scripts|examples)\//.test(path) || /\.test\.js$/.test(path),
			),
		).toEqual([]);
	});

	it('is a community node package without runtime dependencies', () => {
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
	});

	it('ships every node and credential package.json points at, with its icons', () => {
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(packed).toContain(file);
		for (const file of pkg.n8n.credentials) {
			const credential = instantiate<ICredentialType>(join(staging.dir, file));
			expectIcons(file, credential.icon);
		}
		for (const file of pkg.n8n.nodes) {
			const { description } = instantiate<INodeType>(join(staging.dir, file));
			expectIcons(file, (description as INodeTypeDescription).icon);
		}
	});

	it('ships a codex file next to every node, linking to sections of the README or the docs', () => {
		const anchors = readmeAnchors();
		const linkProblems: string[] = [];
		const checkLink = (url: string) => {
			const [base, anchor] = url.split('#');
			const file = base.startsWith(FILE_BASE) ? base.slice(FILE_BASE.length) : undefined;
			if (file !== undefined && file.endsWith('.md') && existsSync(join(REPO_ROOT, file))) {
				if (anchor !== undefined && !readmeAnchors(file).has(anchor)) linkProblems.push(url);
			} else if (base !== README_BASE || !anchors.has(anchor ?? 'readme')) linkProblems.push(url);
		};
		for (const file of pkg.n8n.nodes) {
			const codexFile = file.replace(/\.js$/, '.json');
			expect(packed).toContain(codexFile);
			const codex = JSON.parse(readFileSync(join(staging.dir, codexFile), 'utf8')) as Codex;
			const { description } = instantiate<INodeType>(join(staging.dir, file));
			expect(codex.node).toBe(`${pkg.name}.${description.name}`);
			expect(codex.nodeVersion).toBe('1.0');
			expect(codex.codexVersion).toBe('1.0');
			expect(codex.categories.length).toBeGreaterThan(0);
			expect(codex.resources.primaryDocumentation.length).toBeGreaterThan(0);
			expect(codex.resources.credentialDocumentation.length).toBeGreaterThan(0);
			for (const link of [
				...codex.resources.primaryDocumentation,
				...codex.resources.credentialDocumentation,
			])
				checkLink(link.url);
		}
		for (const file of pkg.n8n.credentials) {
			checkLink(String(instantiate<ICredentialType>(join(staging.dir, file)).documentationUrl));
		}
		expect(linkProblems).toEqual([]);
	});

	it('has a README whose links to its own sections and to repository files resolve', () => {
		const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
		const anchors = readmeAnchors();
		const broken: string[] = [];
		for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
			if (/^https?:/.test(target)) continue;
			const [file, anchor] = target.split('#');
			if (file && !existsSync(join(REPO_ROOT, file))) broken.push(target);
			if (anchor && !file && !anchors.has(anchor)) broken.push(target);
		}
		expect(broken).toEqual([]);
	});
});
