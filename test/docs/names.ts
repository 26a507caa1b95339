/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';

import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import type { Doc } from './markdown';
import { at, proseLines, ROOT } from './markdown';
import { literalsIn, SHIPPED_SOURCE } from './source-messages';
import {
	actionToolDescription,
	credentialParameters,
	namesMatch,
	nodeParameters,
	withPollTimes,
} from './node-parameters';

/**
 * The names a document or an example's note gives to things a user looks for: menu paths
 * ("**Settings > Community nodes > Install**"), buttons and options ("**Fetch Test Event**",
 * "**List Requests per Minute**") and environment variables (`N8N_WEBHOOK_URL`). Each must be
 * one the code has (a node, a parameter, an option, an operation), one of the portal's menus
 * (the spec's section 5) or one of the n8n line the text is written for (n8n-lines.ts).
 */

export type Line = 'current' | 'previous';

export interface Named {
	kind: 'menu path' | 'name' | 'variable';
	text: string;
	/** Which n8n line the text is written for: "(… n8n 1.x …)" is the previous one. */
	line: Line;
}

/** Words Title Case leaves in lower case ("List Requests per Minute", "One at a Time"). */
const SMALL_WORDS = new Set(
	'a an and as at by for from in into of on or per than the to via with'
		.split(' ')
		.map((word) => word),
);

/** A name as the editor writes one: each word capitalized but small ones, no final stop. */
export function isTitleCase(text: string): boolean {
	// "Import from File..." is a menu item; a final stop ends a sentence
	const plain = text
		.replace(/\s*\([^)]*\)$/, '')
		.replace(/\.\.\.$/, '')
		.trim();
	if (!/^[A-Z]/.test(plain) || /[.:;!?,]$/.test(plain) || /^[A-Z0-9_ ]+$/.test(plain)) return false;
	const words = plain.split(/\s+/);
	return (
		words.length <= 6 &&
		words.every((word) => SMALL_WORDS.has(word) || /^[A-Z0-9$/]/.test(word) || word === '…')
	);
}

/** "(`WEBHOOK_URL` on n8n 1.x)", "(n8n 1.x: **⋯** at the top right)": the previous line's words. */
function lineAt(text: string, index: number): Line {
	let depth = 0;
	let start = -1;
	for (let at = index; at >= 0; at--) {
		if (text[at] === ')') depth++;
		if (text[at] === '(') {
			if (depth === 0) {
				start = at;
				break;
			}
			depth--;
		}
	}
	if (start < 0) return 'current';
	const end = text.indexOf(')', index);
	return /n8n 1\.x|\b1\.x\b/.test(text.slice(start, end < 0 ? undefined : end))
		? 'previous'
		: 'current';
}

/** The names one line of Markdown (or of a note) gives. */
export function namesIn(text: string): Named[] {
	const found: Named[] = [];
	for (const match of text.matchAll(/\*\*([^*]+)\*\*/g)) {
		const span = match[1].trim();
		const line = lineAt(text, match.index);
		const before = text.slice(Math.max(0, match.index - 6), match.index);
		if (/ > /.test(span)) found.push({ kind: 'menu path', text: span.replace(/:$/, ''), line });
		else if (isTitleCase(span) || /\bclick $/i.test(before))
			found.push({ kind: 'name', text: span, line });
	}
	for (const match of text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=[^`]*)?`/g))
		found.push({ kind: 'variable', text: match[1], line: lineAt(text, match.index) });
	return found;
}

/** The portal's menu path to its API keys (spec, section 5). */
export const PORTAL_MENU = ['Portal Setup', 'Other', 'Developer / API Keys'];

function optionNames(property: INodeProperties): string[] {
	const options = (property.options ?? []) as Array<INodePropertyOptions | INodeProperties>;
	return [
		...options.flatMap((option) => ('name' in option && 'value' in option ? [option.name] : [])),
		...(property.modes ?? []).map((mode) => mode.displayName),
	];
}

const descriptions: INodeTypeDescription[] = [
	new PartnerLeads().description,
	actionToolDescription(),
	new PartnerLeadsTrigger().description,
	withPollTimes(new PartnerLeadsPollingTrigger().description),
];
const credential = new PartnerLeadsApi();

/** Everything the package names: its nodes, credential, parameters, options and operations. */
export const PACKAGE_NAMES: string[] = [
	...descriptions.map((description) => description.displayName),
	credential.displayName,
	...[...descriptions.flatMap(nodeParameters), ...credentialParameters(credential)].flatMap(
		({ property }) => [
			property.displayName,
			...optionNames(property),
			// n8n shows a collection's placeholder and a list's button text as its add button.
			...(property.type === 'collection' || property.type === 'fixedCollection'
				? [property.placeholder ?? '', String(property.typeOptions?.multipleValueButtonText ?? '')]
				: []
			).filter(Boolean),
		],
	),
];

interface ExampleJson {
	nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
}

/** The example workflows, by file. */
const EXAMPLES = readdirSync(join(ROOT, 'examples'))
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => ({
		file,
		workflow: JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8')) as ExampleJson,
	}));

/** The names of the nodes in the example workflows (n8n's and ours, as the examples name them). */
export const EXAMPLE_NODE_NAMES: string[] = EXAMPLES.flatMap(({ workflow }) =>
	workflow.nodes.map((node) => node.name),
);

/** Whether a name is the package's (a node, parameter, option; "Lead: Get Many", "Lead > Get Many"). */
export function isPackageName(text: string, extra: string[] = []): boolean {
	const parts = text.split(/\s*[:>]\s+/);
	return parts.every((part) => [...PACKAGE_NAMES, ...extra].some((name) => namesMatch(part, name)));
}

export interface NamedAt extends Named {
	/** "docs/triggers.md:42", or "examples/x.json note:3" */
	where: string;
}

/** An example workflow's sticky notes, line by line. */
export interface ExampleNote {
	file: string;
	lines: string[];
	/** The names of the example's nodes and of the fields its Set nodes write. */
	ownNames: string[];
}

export const EXAMPLE_NOTES: ExampleNote[] = EXAMPLES.map(({ file, workflow }) => {
	const content = workflow.nodes
		.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
		.map((node) => String(node.parameters.content ?? ''))
		.join('\n');
	const assigned = JSON.stringify(workflow.nodes.map((node) => node.parameters)).match(
		/"name":"[^"]+"/g,
	);
	return {
		file: `examples/${file}`,
		lines: content.split('\n'),
		ownNames: [
			...workflow.nodes.map((node) => node.name),
			...(assigned ?? []).map((pair) => pair.slice(8, -1)),
		],
	};
});

/** Every name the user documents and the examples' notes give, with where they give it. */
export function namedInDocuments(docs: Doc[]): Array<NamedAt & { extra: string[] }> {
	return [
		...docs.flatMap((doc) =>
			proseLines(doc).flatMap(({ line, text }) =>
				namesIn(text).map((named) => ({
					...named,
					where: at(doc, line),
					extra: EXAMPLE_NODE_NAMES,
				})),
			),
		),
		...EXAMPLE_NOTES.flatMap((note) =>
			note.lines.flatMap((text, index) =>
				namesIn(text).map((named) => ({
					...named,
					where: `${note.file} note:${index + 1}`,
					extra: note.ownNames,
				})),
			),
		),
	];
}

/** The words of a name n8n itself would have to show: a menu path's parts, or the name. */
export function n8nWords(named: Named): string[] {
	return named.kind === 'menu path' ? named.text.split(/\s+>\s+/) : [named.text];
}

/**
 * The names the shipped code's messages and hints put in quotes ("No lead chosen in 'Lead'",
 * "click 'Fetch Test Event'"), with where: each must be a field, option or node of the package,
 * or a button of n8n's editor.
 */
export function quotedNamesInSource(): Array<{ name: string; where: string }> {
	return literalsIn(SHIPPED_SOURCE)
		.filter(({ text }) => /\s/.test(text) && !text.startsWith('='))
		.flatMap(({ text, file, line }) =>
			[...text.matchAll(/(['"])([A-Z][A-Za-z0-9 /()-]{0,60}?)\1/g)]
				.map((match) => match[2].trim())
				.filter((name) => !/^[A-Z0-9_ ]+$/.test(name) && name.split(/\s+/).length <= 6)
				.map((name) => ({ name, where: `${file}:${line}` })),
		);
}
