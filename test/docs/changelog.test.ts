import type { INodeProperties } from 'n8n-workflow';

import { IdSketch } from '../../nodes/shared/changes/idSketch';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { E2E_N8N_VERSIONS, FLOOR_N8N_VERSION } from '../e2e/versions';
import type { Doc } from './markdown';
import { at, readDoc, README, sectionRange } from './markdown';
import { nodeParameters } from './node-parameters';
import { paragraphsOf, unversionedIn, VERSIONED_NAMES } from './n8n-versions';

/**
 * The CHANGELOG in the form users know (Keep a Changelog): per release at most one section of
 * each kind, in the usual order, the user's part first and the contributors' part last; and
 * every default, version and figure it states is the code's.
 */

const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const CONTRIBUTORS = 'For contributors';

const CHANGELOG = readDoc('CHANGELOG.md');

/** The sections under each release heading (`## [x.y.z] - date`), in order. */
function releases(doc: Doc): Array<{ title: string; sections: string[]; line: number }> {
	return doc.headings
		.filter((heading) => heading.level === 2)
		.map((release) => {
			const { to } = sectionRange(doc, release);
			const sections = doc.headings
				.filter((heading) => heading.line > release.line && heading.line <= to)
				.map((heading) => `${'#'.repeat(heading.level)} ${heading.text}`);
			return { title: release.text, sections, line: release.line };
		});
}

/** Why a release's sections are not in the Keep a Changelog form, if they are not. */
function formProblems(release: { title: string; sections: string[] }): string[] {
	const problems: string[] = [];
	const kinds = release.sections.map((section) => section.replace(/^### /, ''));
	if (!/^\[\d+\.\d+\.\d+\] - (unreleased|\d{4}-\d{2}-\d{2})$/.test(release.title))
		problems.push(`"${release.title}" is not "[x.y.z] - date" (or "- unreleased")`);
	for (const section of release.sections)
		if (!/^### /.test(section)) problems.push(`${section}: only ### sections in a release`);
	const known = kinds.filter((kind) => kind !== CONTRIBUTORS);
	for (const kind of known) if (!KINDS.includes(kind)) problems.push(`unknown section "${kind}"`);
	if (new Set(known).size !== known.length) problems.push(`a section twice: ${known.join(', ')}`);
	const order = known.map((kind) => KINDS.indexOf(kind));
	if (order.some((index, position) => position > 0 && index < order[position - 1]))
		problems.push(`sections out of order: ${known.join(', ')}`);
	if (known.length === 0) problems.push('nothing for users');
	if (kinds.includes(CONTRIBUTORS) && kinds.at(-1) !== CONTRIBUTORS)
		problems.push(`"${CONTRIBUTORS}" is not last`);
	return problems;
}

function triggerOption(name: string): INodeProperties {
	const found = nodeParameters(new PartnerLeadsTrigger().description).find(
		({ property }) => property.name === name,
	);
	if (!found) throw new Error(`the trigger has no parameter "${name}"`);
	return found.property;
}

/** What the CHANGELOG states, and what the code says it must be. */
const STATED: Array<{ what: string; pattern: RegExp; expected: () => string[] }> = [
	{
		what: 'the n8n versions CI tests',
		pattern: /Tested with n8n ([\d.]+) and ([\d.]+) on every CI run/,
		expected: () => [...E2E_N8N_VERSIONS],
	},
	{
		what: 'the oldest n8n supported',
		pattern: /the oldest supported, ([\d.]+),/,
		expected: () => [FLOOR_N8N_VERSION],
	},
	{
		what: 'Recover Missed Events by default',
		pattern: /Recover Missed Events, (on|off) by default/,
		expected: () => [triggerOption('recoverMissedEvents').default === true ? 'on' : 'off'],
	},
	{
		what: 'Leads per Execution Under Load: its default and its largest value',
		pattern: /Leads per Execution Under Load\*\* \((\d+) unless you choose more, up to (\d+)\)/,
		expected: () => {
			const option = triggerOption('leadsPerExecution');
			return [String(option.default), String(option.typeOptions?.maxValue)];
		},
	},
	{
		what: "a large portal's lead IDs, stored (24-character IDs)",
		pattern: /lead IDs are kept in (\d+) KB/,
		expected: () => {
			const sketch = IdSketch.of(['5f1d7c0e9a3b2c4d6e8f0a1b'])!;
			return [String(Math.round(JSON.stringify(sketch.stored()).length / 1000))];
		},
	},
];

/** The CHANGELOG's text as one line, so that a statement may wrap. */
const TEXT = CHANGELOG.lines.join(' ').replace(/\s+/g, ' ');

describe('CHANGELOG.md in the Keep a Changelog form', () => {
	it('has a release', () => {
		expect(releases(CHANGELOG).length).toBeGreaterThan(0);
	});

	it.each(releases(CHANGELOG).map((release) => [release.title, release] as const))(
		'%s: one section of each kind, in order, the contributors last',
		(_title, release) => {
			expect(
				formProblems(release).map((problem) => `${at(CHANGELOG, release.line)}: ${problem}`),
			).toEqual([]);
		},
	);

	it('would find a section twice, out of order, or of an unknown kind', () => {
		const release = { title: '[1.0.0] - 2026-01-01' };
		expect(formProblems({ ...release, sections: ['### Added', '### Added'] })).not.toEqual([]);
		expect(formProblems({ ...release, sections: ['### Fixed', '### Added'] })).not.toEqual([]);
		expect(formProblems({ ...release, sections: ['### What you get'] })).not.toEqual([]);
		expect(formProblems({ ...release, sections: ['### Added', '#### Added'] })).not.toEqual([]);
		expect(
			formProblems({ ...release, sections: [`### ${CONTRIBUTORS}`, '### Added'] }),
		).not.toEqual([]);
		expect(formProblems({ ...release, sections: ['### Added', `### ${CONTRIBUTORS}`] })).toEqual(
			[],
		);
	});
});

describe('what the CHANGELOG states is what the code does', () => {
	it.each(STATED.map((entry) => [entry.what, entry] as const))('%s', (_what, entry) => {
		const stated = TEXT.match(entry.pattern);
		expect(stated?.slice(1)).toEqual(entry.expected());
	});

	it('the floor in the README is the floor `npm run floor` runs', () => {
		const stated = README.lines.join('\n').match(/1\.x from ([\d.]+) on/);
		expect(stated?.[1]).toBe(FLOOR_N8N_VERSION);
	});

	it('names an n8n feature only with the version that brings it', () => {
		const units = paragraphsOf(CHANGELOG).map(({ line, text }) => ({
			where: at(CHANGELOG, line),
			text,
		}));
		expect(VERSIONED_NAMES.flatMap((entry) => unversionedIn(entry, units, TEXT))).toEqual([]);
	});
});
