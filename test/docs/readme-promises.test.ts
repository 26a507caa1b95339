import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import type { Doc } from './markdown';
import {
	at,
	codeSpans,
	headingPath,
	proseLines,
	README,
	sectionRange,
	tables,
	USER_DOCS,
} from './markdown';
import type { Parameter } from './node-parameters';
import {
	actionToolDescription,
	choiceProblems,
	credentialParameters,
	defaultMatches,
	describeDefault,
	findParameters,
	nodeParameters,
	withPollTimes,
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
 * What the README (and SECURITY.md, CONTRIBUTING.md) promise, checked against the code. Every
 * check reads the Markdown, so a section added or edited later is checked the same way; each
 * failure names the file, the line, the claim and what the code says. See CONTRIBUTING.md,
 * "The documentation test".
 */

const action = new PartnerLeads().description;
const tool = actionToolDescription();
const trigger = new PartnerLeadsTrigger().description;
const polling = withPollTimes(new PartnerLeadsPollingTrigger().description);
const credential = new PartnerLeadsApi();
const ALL_PARAMETERS = [
	...nodeParameters(action),
	...nodeParameters(tool).filter((parameter) => !action.properties.includes(parameter.top)),
	...nodeParameters(trigger),
	...nodeParameters(polling),
	...credentialParameters(credential),
];

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

	const quotes = USER_DOCS.flatMap((doc) =>
		[...troubleshootingQuotes(doc), ...sentenceQuotes(doc)].map((quote) => ({ ...quote, doc })),
	);
	const unique = quotes.filter(
		(quote, index) =>
			quotes.findIndex((other) => other.doc === quote.doc && other.quote === quote.quote) === index,
	);

	it('the documents quote messages, and the Troubleshooting page has some', () => {
		expect(USER_DOCS.flatMap(troubleshootingQuotes).length).toBeGreaterThan(10);
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
		/** The rest of a table row: what it says about the parameter. */
		notes: string;
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

	const claims: Claim[] = USER_DOCS.flatMap((doc) => [
		...tables(doc).flatMap((table) => {
			const column = table.header.findIndex((cell) => /^(parameters?|fields?)$/i.test(cell));
			if (column < 0) return [];
			return table.rows.map((row) => ({
				doc,
				line: row.line,
				names: namesIn(row.cells[column] ?? ''),
				notes: row.cells.filter((_cell, index) => index !== column).join(' '),
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
					notes: '',
					defaults: [{ name: match[1], value: match[2].trim() }],
					scope: scopeOf(doc, line),
				})),
			),
	]);

	it('the README and the pages under docs/ document parameters in tables', () => {
		expect(claims.filter((claim) => claim.doc === README).length).toBeGreaterThan(5);
		expect(claims.length).toBeGreaterThan(30);
	});

	it.each(
		claims.map(
			(claim) =>
				[
					`${at(claim.doc, claim.line)} ${claim.names.map((path) => path.join(' > ')).join(', ')}`,
					claim,
				] as const,
		),
	)('%s', (_title, { doc, line, names, notes, defaults, scope }) => {
		const problems: string[] = [];
		const found = new Map<string, Parameter[]>();
		for (const path of names) {
			const matches = findParameters(scope, path);
			found.set(path[path.length - 1], matches);
			if (names.length === 1)
				for (const problem of choiceProblems(matches, notes))
					problems.push(`${at(doc, line)}: "${path.join(' > ')}": ${problem}`);
			if (!matches.length)
				problems.push(
					`${at(doc, line)}: no parameter "${path.join(' > ')}" in ${action.displayName}, ${trigger.displayName}, ${polling.displayName} or ${credential.displayName}${scope === ALL_PARAMETERS ? '' : " where this section's operation shows it"}`,
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
