/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { exampleProblems } from './example-workflow';
import {
	at,
	DOCS,
	links,
	proseLines,
	readDoc,
	README,
	ROOT,
	sectionRange,
	USER_DOCS,
} from './markdown';

/**
 * What the README (and SECURITY.md, CONTRIBUTING.md) promise, checked against the code. Every
 * check reads the Markdown, so a section added or edited later is checked the same way; each
 * failure names the file, the line, the claim and what the code says. See CONTRIBUTING.md,
 * "The documentation test".
 */

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
				? exampleProblems(readFileSync(join(ROOT, file), 'utf8'))
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
	const sections = USER_DOCS.flatMap((doc) =>
		doc.headings
			.filter((heading) => /how it compares/i.test(heading.text))
			.map((heading) => ({ doc, heading })),
	);

	it('one page has the comparison', () => {
		expect(sections.map(({ doc, heading }) => `${doc.file}: ${heading.text}`)).toHaveLength(1);
	});

	it('every figure in it is one of bench/README.md, so the figures are updated there first', () => {
		const problems = sections.flatMap(({ doc, heading }) =>
			proseLines(doc, sectionRange(doc, heading)).flatMap(({ line, text }) =>
				figures(text.replace(/\([^)]*\.md[^)]*\)|`[^`]*`/g, ''))
					.filter((figure) => !benchFigures.has(figure))
					.map(
						(figure) =>
							`${at(doc, line)} (${heading.text}): "${figure}" is no figure of bench/README.md; take it from there`,
					),
			),
		);
		expect(problems).toEqual([]);
	});
});
