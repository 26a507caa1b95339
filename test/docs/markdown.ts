/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Just enough Markdown for the documentation test: headings with GitHub's anchors, sections,
 * pipe tables, links and code, each with the line it is on so a failure can point at it.
 */

export const ROOT = join(__dirname, '..', '..');

export interface Heading {
	level: number;
	text: string;
	slug: string;
	line: number;
}

export interface Doc {
	file: string;
	lines: string[];
	/** 1-based line numbers inside fenced code blocks (fences included). */
	codeLines: Set<number>;
	headings: Heading[];
	fences: Array<{ lang: string; line: number; body: string[] }>;
}

export interface Range {
	from: number;
	to: number;
}

export interface TableRow {
	line: number;
	cells: string[];
}

export interface Table {
	line: number;
	header: string[];
	rows: TableRow[];
}

export interface Link {
	line: number;
	text: string;
	target: string;
	image: boolean;
}

/** The text GitHub renders for inline Markdown: link texts, code contents, no emphasis marks. */
export function renderedText(markdown: string): string {
	return markdown
		.replace(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\([^)]*\)/g, '$1')
		.replace(/`([^`]*)`/g, '$1')
		.replace(/\*+/g, '')
		.trim();
}

/** GitHub's heading anchor (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(headingText: string): string {
	return renderedText(headingText)
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

export function readDoc(file: string): Doc {
	return parseDoc(file, readFileSync(join(ROOT, file), 'utf8'));
}

export function parseDoc(file: string, markdown: string): Doc {
	const lines = markdown.split('\n');
	const codeLines = new Set<number>();
	const headings: Heading[] = [];
	const fences: Doc['fences'] = [];
	const seen = new Map<string, number>();
	let fence: Doc['fences'][number] | undefined;
	lines.forEach((text, index) => {
		const line = index + 1;
		const fenceMatch = /^\s*(```+|~~~+)\s*(\S*)/.exec(text);
		if (fence || fenceMatch) codeLines.add(line);
		if (fenceMatch) {
			if (fence) {
				fences.push(fence);
				fence = undefined;
			} else {
				fence = { lang: fenceMatch[2], line, body: [] };
			}
			return;
		}
		if (fence) {
			fence.body.push(text);
			return;
		}
		const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(text);
		if (!heading) return;
		const base = slugOf(heading[2]);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		headings.push({
			level: heading[1].length,
			text: renderedText(heading[2]),
			slug: count ? `${base}-${count}` : base,
			line,
		});
	});
	return { file, lines, codeLines, headings, fences };
}

/** Lines of the section under a heading, its subsections included. */
export function sectionRange(doc: Doc, heading: Heading): Range {
	const next = doc.headings.find(
		(other) => other.line > heading.line && other.level <= heading.level,
	);
	return { from: heading.line, to: next ? next.line - 1 : doc.lines.length };
}

/** The headings a line is under, outermost first. */
export function headingPath(doc: Doc, line: number): Heading[] {
	const path: Heading[] = [];
	for (const heading of doc.headings.filter((candidate) => candidate.line <= line)) {
		while (path.length && path[path.length - 1].level >= heading.level) path.pop();
		path.push(heading);
	}
	return path;
}

/** The prose lines of a range (fenced code left out), with their numbers. */
export function proseLines(doc: Doc, range: Range = { from: 1, to: doc.lines.length }) {
	const result: Array<{ line: number; text: string }> = [];
	for (let line = range.from; line <= range.to; line++)
		if (!doc.codeLines.has(line)) result.push({ line, text: doc.lines[line - 1] });
	return result;
}

/** Cells of a table row: split on pipes outside code spans, `\|` kept as a pipe. */
export function splitRow(text: string): string[] {
	const cells: string[] = [];
	let cell = '';
	let inCode = false;
	const body = text.trim().replace(/^\|/, '').replace(/\|$/, '');
	for (let index = 0; index < body.length; index++) {
		const char = body[index];
		if (char === '\\' && body[index + 1] === '|') {
			cell += '|';
			index++;
		} else if (char === '`') {
			inCode = !inCode;
			cell += char;
		} else if (char === '|' && !inCode) {
			cells.push(cell.trim());
			cell = '';
		} else {
			cell += char;
		}
	}
	cells.push(cell.trim());
	return cells;
}

export function tables(doc: Doc, range: Range = { from: 1, to: doc.lines.length }): Table[] {
	const found: Table[] = [];
	let current: Table | undefined;
	for (const { line, text } of proseLines(doc, range)) {
		if (!text.trim().startsWith('|')) {
			current = undefined;
			continue;
		}
		const cells = splitRow(text);
		if (!current) {
			current = { line, header: cells, rows: [] };
			found.push(current);
		} else if (!cells.every((cell) => /^:?-+:?$/.test(cell))) {
			current.rows.push({ line, cells });
		}
	}
	return found;
}

export function codeSpans(text: string): string[] {
	return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

/** Inline links and images, and HTML src/href attributes, outside code. */
export function links(doc: Doc): Link[] {
	const found: Link[] = [];
	for (const { line, text } of proseLines(doc)) {
		// Code spans blanked, so a bracket or parenthesis in code is not read as a link.
		const prose = text.replace(/`[^`]*`/g, (span) => '`' + ' '.repeat(span.length - 2) + '`');
		for (const match of prose.matchAll(
			/(!?)\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
		))
			found.push({
				line,
				text: text.slice(
					match.index + match[1].length + 1,
					match.index + match[1].length + 1 + match[2].length,
				),
				target: match[3],
				image: match[1] === '!',
			});
		for (const match of prose.matchAll(/<(img|a)\s[^>]*?(src|href)="([^"]+)"/g))
			found.push({ line, text: match[0], target: match[3], image: match[1] === 'img' });
	}
	return found;
}

/** The documents whose promises are checked. */
export const README = readDoc('README.md');
export const SECURITY = readDoc('SECURITY.md');
export const CONTRIBUTING = readDoc('CONTRIBUTING.md');

/** The pages under docs/ written for users (ARCHITECTURE.md is the contributors' map of the code). */
export const DOCS_PAGES = readdirSync(join(ROOT, 'docs'))
	.filter((file) => file.endsWith('.md') && file !== 'ARCHITECTURE.md')
	.sort()
	.map((file) => readDoc(`docs/${file}`));

/** What users read: the README, the pages under docs/ and SECURITY.md. */
export const USER_DOCS = [README, ...DOCS_PAGES, SECURITY];

/** The contributors' map of the code. */
export const ARCHITECTURE = readDoc('docs/ARCHITECTURE.md');

/** Why each design was chosen (docs/design/), for contributors. */
export const DESIGN_DOCS = readdirSync(join(ROOT, 'docs', 'design'))
	.filter((file) => file.endsWith('.md'))
	.sort()
	.map((file) => readDoc(`docs/design/${file}`));

/** Every document whose links, commands and promises are checked. */
export const DOCS = [...USER_DOCS, CONTRIBUTING, ARCHITECTURE, ...DESIGN_DOCS];

/** "README.md:42", for failure messages. */
export const at = (doc: Doc, line: number) => `${doc.file}:${line}`;

export const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	scripts: Record<string, string>;
};
