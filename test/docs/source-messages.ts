/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import * as ts from 'typescript';

import { ROOT } from './markdown';

/**
 * Whether a message quoted in the documentation is one the shipped code can produce. The code
 * builds messages from string and template literals, with values (a field name, a status, an
 * address) in between, so a quote is read as literal text of the source with gaps for values:
 * every literal of the source that the quote contains counts, and so does a piece of one at
 * either end of the quote, or where the documentation cuts the message short with "…".
 */

/** Folders of the code the package ships. */
export const SHIPPED_SOURCE = ['nodes', 'credentials'];

/**
 * Where the values in the documentation's example messages come from: the simulated portal
 * (its schema's labels and picklists) and the demo's lead list.
 */
export const EXAMPLE_DATA = ['test/simulator', 'scripts/demo'];

/** At least this share of a quote's words must be the source's literal text. */
export const MIN_LITERAL_SHARE = 0.4;

/** Words in a row that neither the source's literals nor the example data account for: a value. */
export const MAX_VALUE_WORDS = 2;

/** Shorter pieces of a literal match too easily to count at a quote's ends. */
const MIN_PIECE = 3;

export interface Literal {
	text: string;
	/** A piece of a template literal between its values: text of a message being built. */
	piece: boolean;
	file: string;
	line: number;
}

/** The TypeScript files under a folder, recursively. */
export function tsFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return tsFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** The static text of every string and template literal of the TypeScript under the folders. */
export function literalsIn(folders: string[]): Literal[] {
	const literals: Literal[] = [];
	for (const path of folders.flatMap((folder) => tsFiles(join(ROOT, folder)))) {
		const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
		const add = (text: string, node: ts.Node, piece = false) => {
			if (text.trim())
				literals.push({
					text,
					piece,
					file: relative(ROOT, path),
					line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
				});
		};
		const visit = (node: ts.Node): void => {
			if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
				add(node.text, node);
			else if (ts.isTemplateExpression(node)) {
				add(node.head.text, node, true);
				for (const span of node.templateSpans) add(span.literal.text, span, true);
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return literals;
}

export interface QuoteMatch {
	/** Share of the quote's words that are literal text of the source. */
	share: number;
	/** Runs of words neither the source nor the example data account for. */
	unaccounted: string[];
	/** The literal that accounts for most of the quote, to show what the code says instead. */
	closest?: Literal;
}

const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Whether a literal found at this place starts or ends inside a word of the quote ("id" in "valid"). */
function splitsWord(fragment: string, at: number, text: string): boolean {
	const end = at + text.length;
	return (
		(WORD_CHAR.test(text[0]) && at > 0 && WORD_CHAR.test(fragment[at - 1])) ||
		(WORD_CHAR.test(text[text.length - 1]) &&
			end < fragment.length &&
			WORD_CHAR.test(fragment[end]))
	);
}

function markFragment(fragment: string, literals: Literal[], covered: boolean[], offset: number) {
	const best = new Map<Literal, number>();
	const mark = (literal: Literal, from: number, length: number) => {
		for (let index = from; index < from + length; index++) covered[offset + index] = true;
		best.set(literal, (best.get(literal) ?? 0) + length);
	};
	for (const literal of literals) {
		const { text } = literal;
		if (text.includes(fragment)) {
			mark(literal, 0, fragment.length);
			continue;
		}
		// A one-word string such as 'lead' or 'value' is a key or a code, not message text.
		if (!literal.piece && (text.match(WORD) ?? []).length < 2) continue;
		for (let at = fragment.indexOf(text); at >= 0; at = fragment.indexOf(text, at + 1))
			if (!splitsWord(fragment, at, text)) mark(literal, at, text.length);
		// The quote may start inside a literal (after "…") and end inside one (before "…").
		for (let length = Math.min(fragment.length, text.length) - 1; length >= MIN_PIECE; length--)
			if (text.endsWith(fragment.slice(0, length))) {
				mark(literal, 0, length);
				break;
			}
		for (let length = Math.min(fragment.length, text.length) - 1; length >= MIN_PIECE; length--)
			if (text.startsWith(fragment.slice(fragment.length - length))) {
				mark(literal, fragment.length - length, length);
				break;
			}
	}
	return best;
}

/** Literals of the example data this short are values (a label, a picklist value, an ID); longer ones are prose. */
const MAX_VALUE_LITERAL_WORDS = 2;

/** The words of the example data's values, which may stand in a quote where the code has a value. */
export function dataWords(literals: Literal[]): Set<string> {
	return new Set(
		literals
			.map(({ text }) => [...text.matchAll(WORD)].map((match) => match[0]))
			.filter((words) => words.length <= MAX_VALUE_LITERAL_WORDS)
			.flat(),
	);
}

/**
 * How a quoted message (with "…" for left-out parts) is made: the share of its words that are
 * literal text of the source, and the runs of words that are neither that nor a value.
 */
export function matchQuote(quote: string, literals: Literal[], values: Set<string>): QuoteMatch {
	const text = quote.replace(/\.\.\./g, '…');
	const covered: boolean[] = new Array<boolean>(text.length).fill(false);
	const credit = new Map<Literal, number>();
	let offset = 0;
	for (const fragment of text.split('…')) {
		for (const [literal, length] of markFragment(fragment, literals, covered, offset))
			credit.set(literal, (credit.get(literal) ?? 0) + length);
		offset += fragment.length + 1;
	}
	const words = [...text.matchAll(WORD)].map((match) => ({
		word: match[0],
		literal: covered.slice(match.index, match.index + match[0].length).every(Boolean),
	}));
	const unaccounted: string[] = [];
	let run: string[] = [];
	for (const { word, literal } of [...words, { word: '', literal: true }]) {
		if (literal || values.has(word)) {
			if (run.length > MAX_VALUE_WORDS) unaccounted.push(run.join(' '));
			run = [];
		} else run.push(word);
	}
	const closest = [...credit.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
	return {
		share: words.length ? words.filter(({ literal }) => literal).length / words.length : 1,
		unaccounted,
		closest,
	};
}
