/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { exampleProblems } from './example-workflow';
import type { Doc } from './markdown';
import {
	codeSpans,
	headingPath,
	links,
	proseLines,
	readDoc,
	ROOT,
	sectionRange,
	tables,
} from './markdown';
import type { Parameter } from './node-parameters';
import {
	credentialParameters,
	defaultMatches,
	describeDefault,
	findParameters,
	nodeParameters,
	operationsOfHeading,
	shownFor,
} from './node-parameters';
import {
	dataWords,
	EXAMPLE_DATA,
	literalsIn,
	MAX_VALUE_WORDS,
	matchQuote,
	MIN_LITERAL_SHARE,
	SHIPPED_SOURCE,
} from './source-messages';

/**
 * What the README (and SECURITY.md, CONTRIBUTING.md) promise, checked against the code: the
 * set-up commands, the messages it quotes, the parameters and defaults it names, its links and
 * anchors, and the example workflows it links. Every check reads the Markdown, so a section
 * added or edited later is checked the same way; each failure names the file, the line, the
 * claim and what the code says.
 */

const README = readDoc('README.md');
const SECURITY = readDoc('SECURITY.md');
const CONTRIBUTING = readDoc('CONTRIBUTING.md');
const DOCS = [README, SECURITY, CONTRIBUTING];

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	scripts: Record<string, string>;
};
const action = new PartnerLeads().description;
const trigger = new PartnerLeadsTrigger().description;
const credential = new PartnerLeadsApi();
const ALL_PARAMETERS = [
	...nodeParameters(action),
	...nodeParameters(trigger),
	...credentialParameters(credential),
];

const at = (doc: Doc, line: number) => `${doc.file}:${line}`;

/** npm invocations in a command line: `npm ci`, `npm test`, `npm run <script>` with arguments. */
function npmCommands(commandLine: string): Array<{ command: string; script?: string }> {
	return commandLine
		.replace(/\s#.*$/, '')
		.split(/&&|;|\|\|/)
		.map((part) => part.trim())
		.filter((part) => /^npm\s/.test(part))
		.map((command) => {
			const run = /^npm\s+(?:run|run-script)\s+([^\s<]\S*)/.exec(command); // "<script>": a placeholder
			const builtIn = /^npm\s+(test|t|start|stop|restart)\b/.exec(command);
			const script = run?.[1] ?? (builtIn ? ({ t: 'test' }[builtIn[1]] ?? builtIn[1]) : undefined);
			return { command: command.replace(/\s+/g, ' '), script };
		});
}

describe('the set-up commands at the top of the README', () => {
	const block = README.fences[0];
	const secondSection = README.headings.filter((heading) => heading.level === 2)[1];
	const commandLines = (block?.body ?? []).filter((line) => npmCommands(line).length > 0);
	const scriptsRun = commandLines.map((line) =>
		npmCommands(line).filter((command) => command.script !== undefined),
	);

	it('come first: the README opens its first section with a code block of two commands', () => {
		expect(block).toBeDefined();
		expect({
			line: block.line,
			beforeSecondSection: block.line < (secondSection?.line ?? Infinity),
		}).toEqual({
			line: block.line,
			beforeSecondSection: true,
		});
		expect(
			commandLines.map((line, index) => ({ line, scripts: scriptsRun[index].length })),
		).toEqual(commandLines.map((line) => ({ line, scripts: 1 })));
		expect(commandLines).toHaveLength(2);
	});

	it('run scripts package.json has, and one of them is the test command .ci/run runs', () => {
		const missing = scriptsRun
			.flat()
			.filter(({ script }) => !(script! in packageJson.scripts))
			.map(
				({ command }) => `${at(README, block.line)}: \`${command}\` runs no script of package.json`,
			);
		expect(missing).toEqual([]);

		const testCommand = scriptsRun.flat().find(({ script }) => script === 'test');
		expect(testCommand).toBeDefined();
		const ciCommands = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
			.split('\n')
			.filter((line) => !/^\s*#/.test(line))
			.flatMap(npmCommands)
			.map(({ command }) => command);
		expect({
			readmeTestCommand: testCommand!.command,
			ranByCi: ciCommands.includes(testCommand!.command),
		}).toEqual({
			readmeTestCommand: testCommand!.command,
			ranByCi: true,
		});
	});
});

it('every `npm run` the documents name is a script of package.json', () => {
	const problems = DOCS.flatMap((doc) =>
		doc.lines.flatMap((text, index) => {
			const candidates = doc.codeLines.has(index + 1) ? [text] : codeSpans(text);
			return candidates
				.flatMap(npmCommands)
				.filter(({ script }) => script !== undefined && !(script in packageJson.scripts))
				.map(
					({ command, script }) =>
						`${at(doc, index + 1)}: \`${command}\`: package.json has no script "${script}"`,
				);
		}),
	);
	expect(problems).toEqual([]);
});

describe('messages the documents quote are ones the code can produce', () => {
	const literals = literalsIn(SHIPPED_SOURCE);
	const values = dataWords(literalsIn(EXAMPLE_DATA));

	/** Code in the first column of the Troubleshooting tables: the messages a user searches for. */
	function troubleshootingQuotes(doc: Doc) {
		return doc.headings
			.filter((heading) => /troubleshoot/i.test(heading.text))
			.flatMap((heading) => tables(doc, sectionRange(doc, heading)))
			.flatMap((table) =>
				table.rows.flatMap((row) =>
					codeSpans(row.cells[0] ?? '').map((quote) => ({
						line: row.line,
						quote,
						where: table.header[0],
					})),
				),
			);
	}

	/** Code that reads as a sentence of the nodes (a capital, four words or more) anywhere in the prose. */
	function sentenceQuotes(doc: Doc) {
		return proseLines(doc).flatMap(({ line, text }) =>
			codeSpans(text)
				.filter(
					(quote) =>
						/^['A-Z]/.test(quote) &&
						!/[{}<>=$]|^[A-Z_]+$/.test(quote) &&
						quote.split(/\s+/).length >= 4,
				)
				.map((quote) => ({ line, quote, where: 'quoted message' })),
		);
	}

	const quotes = [README, SECURITY].flatMap((doc) =>
		[...troubleshootingQuotes(doc), ...sentenceQuotes(doc)].map((quote) => ({ ...quote, doc })),
	);
	const unique = quotes.filter(
		(quote, index) =>
			quotes.findIndex((other) => other.doc === quote.doc && other.quote === quote.quote) === index,
	);

	it('the README quotes messages, and the Troubleshooting section has some', () => {
		expect(troubleshootingQuotes(README).length).toBeGreaterThan(0);
	});

	it.each(
		unique.map((quote) => [`${at(quote.doc, quote.line)} \`${quote.quote}\``, quote] as const),
	)('%s', (_title, { doc, line, quote, where }) => {
		const match = matchQuote(quote, literals, values);
		const problems = [
			...(match.share < MIN_LITERAL_SHARE
				? [
						`only ${Math.round(match.share * 100)}% of its words are literal text of ${SHIPPED_SOURCE.join('/ or ')}/ (${MIN_LITERAL_SHARE * 100}% needed)`,
					]
				: []),
			...match.unaccounted.map(
				(words) =>
					`"${words}" is in no literal of ${SHIPPED_SOURCE.join('/ or ')}/ and is longer than a value (${MAX_VALUE_WORDS} words)`,
			),
		];
		const verdict = problems.length
			? `${at(doc, line)} (${where}): \`${quote}\` is not a message the code can produce: ${problems.join('; ')}.${
					match.closest
						? ` Closest in the code: ${match.closest.file}:${match.closest.line} "${match.closest.text}"`
						: ''
				}`
			: 'found in the source';
		expect(verdict).toBe('found in the source');
	});
});

describe('parameters and defaults the documents name exist, with those defaults', () => {
	interface Claim {
		doc: Doc;
		line: number;
		names: string[][];
		defaults: Array<{ name?: string; value: string }>;
		scope: Parameter[];
	}

	/** The parameters a line can be about: those of the operation its heading names, if it names one. */
	function scopeOf(doc: Doc, line: number): Parameter[] {
		const nearest = headingPath(doc, line).pop();
		const operations = nearest && operationsOfHeading(action, nearest.text);
		if (!operations) return ALL_PARAMETERS;
		return ALL_PARAMETERS.filter(
			(parameter) => parameter.owner !== action.displayName || shownFor(parameter, operations),
		);
	}

	/** "Options > Parallel Requests", "Return All / Limit", "Topic (…), Receiver URL (…)". */
	function namesIn(cell: string): string[][] {
		return cell
			.replace(/\*\*/g, '')
			.replace(/\([^)]*\)/g, '')
			.split(/,\s*|\s+\/\s+/)
			.map((name) => name.split(':')[0].trim())
			.filter(Boolean)
			.map((name) => name.split(/\s*>\s*/));
	}

	/** "(default 50)", "On (default)", "**Match Field** (default Email; …)". */
	function defaultsIn(text: string): Claim['defaults'] {
		const plain = text.replace(/`/g, '');
		return [
			...[...plain.matchAll(/(?:\*\*([^*]+)\*\*|([\p{L}\p{N}]+))\s*\(default:?\s+([^;,)]+)/gu)].map(
				(match) => ({
					name: match[1] ?? match[2],
					value: match[3].trim(),
				}),
			),
			...[...plain.matchAll(/(?:\*\*([^*]+)\*\*|([\p{L}\p{N}.]+))\s*\(default\)/gu)].map(
				(match) => ({
					value: (match[1] ?? match[2]).trim(),
				}),
			),
		];
	}

	const claims: Claim[] = [README, SECURITY].flatMap((doc) => [
		...tables(doc).flatMap((table) => {
			const column = table.header.findIndex((cell) => /^(parameters?|fields?)$/i.test(cell));
			if (column < 0) return [];
			return table.rows.map((row) => ({
				doc,
				line: row.line,
				names: namesIn(row.cells[column] ?? ''),
				defaults: defaultsIn(row.cells.filter((_cell, index) => index !== column).join(' ')),
				scope: scopeOf(doc, row.line),
			}));
		}),
		...proseLines(doc)
			.filter(({ text }) => !text.trim().startsWith('|'))
			.flatMap(({ line, text }) =>
				[...text.matchAll(/\*\*([^*]+)\*\*\s*\(default:?\s+([^;,)]+)/g)].map((match) => ({
					doc,
					line,
					names: [[match[1]]],
					defaults: [{ name: match[1], value: match[2].trim() }],
					scope: scopeOf(doc, line),
				})),
			),
	]);

	it('the README documents parameters in tables', () => {
		expect(claims.filter((claim) => claim.doc === README).length).toBeGreaterThan(10);
	});

	it.each(
		claims.map(
			(claim) =>
				[
					`${at(claim.doc, claim.line)} ${claim.names.map((path) => path.join(' > ')).join(', ')}`,
					claim,
				] as const,
		),
	)('%s', (_title, { doc, line, names, defaults, scope }) => {
		const problems: string[] = [];
		const found = new Map<string, Parameter[]>();
		for (const path of names) {
			const matches = findParameters(scope, path);
			found.set(path[path.length - 1], matches);
			if (!matches.length)
				problems.push(
					`${at(doc, line)}: no parameter "${path.join(' > ')}" in ${action.displayName}, ${trigger.displayName} or ${credential.displayName}${scope === ALL_PARAMETERS ? '' : " where this section's operation shows it"}`,
				);
		}
		for (const claimed of defaults) {
			const name =
				claimed.name && [...found.keys()].find((candidate) => candidate === claimed.name)
					? claimed.name
					: found.size === 1
						? [...found.keys()][0]
						: undefined;
			if (!name) {
				if (claimed.name === undefined || [...found.keys()].length > 0)
					problems.push(
						`${at(doc, line)}: says "default ${claimed.value}" without naming which of ${[...found.keys()].join(', ')}`,
					);
				continue;
			}
			const matches = found.get(name) ?? [];
			if (
				matches.length &&
				!matches.some(({ property }) => defaultMatches(property, claimed.value))
			)
				problems.push(
					`${at(doc, line)}: says "${name}" defaults to "${claimed.value}"; the code's default is ${matches
						.map(
							({ owner, path, property }) =>
								`${describeDefault(property)} in ${owner} > ${path.join(' > ')}`,
						)
						.join(', ')}`,
				);
		}
		expect(problems).toEqual([]);
	});
});

describe('links and anchors resolve', () => {
	const docByFile = new Map(DOCS.map((doc) => [doc.file, doc]));
	const docAt = (file: string) =>
		docByFile.get(file) ??
		(file.endsWith('.md') && existsSync(join(ROOT, file)) ? readDoc(file) : undefined);

	it.each(DOCS.map((doc) => [doc.file, doc] as const))('%s', (_file, doc) => {
		const problems: string[] = [];
		for (const link of links(doc)) {
			if (/^[a-z][a-z+.-]*:/i.test(link.target)) continue; // https:, mailto:: not followed offline
			const [pathPart, anchor] = link.target.split('#', 2);
			const file = pathPart
				? relative(ROOT, join(ROOT, dirname(doc.file), decodeURI(pathPart)))
				: doc.file;
			const claim = `${at(doc, link.line)}: ${link.image ? 'image' : 'link'} [${link.text}](${link.target})`;
			if (!existsSync(join(ROOT, file))) {
				problems.push(`${claim}: ${file} does not exist`);
				continue;
			}
			if (anchor === undefined) continue;
			const target = docAt(file);
			if (!target) {
				problems.push(`${claim}: ${file} is not Markdown, so it has no heading "#${anchor}"`);
			} else if (!target.headings.some((heading) => heading.slug === anchor.toLowerCase())) {
				const near = target.headings
					.filter((heading) => heading.slug.includes(anchor.split('-')[0]))
					.map((heading) => `#${heading.slug}`);
				problems.push(
					`${claim}: ${file} has no heading with the anchor "#${anchor}"${near.length ? ` (near: ${near.join(', ')})` : ''}`,
				);
			}
		}
		expect(problems).toEqual([]);
	});
});

describe('example workflows the README links import into n8n', () => {
	const examples = links(README)
		.map((link) => ({ ...link, file: relative(ROOT, join(ROOT, link.target.split('#')[0])) }))
		.filter((link) => link.file.startsWith('examples/') && link.file.endsWith('.json'));
	const unique = [...new Map(examples.map((example) => [example.file, example])).values()];

	it('the README links examples', () => {
		expect(unique.length).toBeGreaterThan(0);
	});

	it.each(unique.map((example) => [example.file, example] as const))(
		'%s',
		(_file, { file, line }) => {
			const problems = existsSync(join(ROOT, file))
				? exampleProblems(readFileSync(join(ROOT, file), 'utf8'), packageJson.name, [
						new PartnerLeads(),
						new PartnerLeadsTrigger(),
					])
				: ['does not exist'];
			expect(problems.map((problem) => `${at(README, line)} links ${file}: ${problem}`)).toEqual(
				[],
			);
		},
	);
});

describe('the comparison quotes its figures from bench/README.md', () => {
	const BENCH = readDoc('bench/README.md');
	/** Figures as written: 4.52, 1,000, 2.40.7, 30. */
	const figures = (text: string) => text.match(/\d(?:[\d,.]*\d)?/g) ?? [];
	const benchFigures = new Set(proseLines(BENCH).flatMap(({ text }) => figures(text)));
	const sections = README.headings.filter((heading) => /how it compares/i.test(heading.text));

	it('the README has the comparison', () => {
		expect(sections.map((heading) => heading.text)).toHaveLength(1);
	});

	it('every figure in it is one of bench/README.md, so the figures are updated there first', () => {
		const problems = sections.flatMap((heading) =>
			proseLines(README, sectionRange(README, heading)).flatMap(({ line, text }) =>
				figures(text.replace(/\([^)]*\.md[^)]*\)|`[^`]*`/g, ''))
					.filter((figure) => !benchFigures.has(figure))
					.map(
						(figure) =>
							`${at(README, line)} (${heading.text}): "${figure}" is no figure of bench/README.md; take it from there`,
					),
			),
		);
		expect(problems).toEqual([]);
	});
});
