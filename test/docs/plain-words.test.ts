import type { Doc } from './markdown';
import { at, DOCS_PAGES, proseLines, README, readDoc } from './markdown';

/**
 * The pages a no-code user reads speak the user's words: the package's internals and the
 * engineers' terms stay in docs/ARCHITECTURE.md, docs/design/ and SECURITY.md (written for
 * security reviewers), where the same words are allowed.
 */

/** A term, and the plain words a user page uses instead. */
const INTERNAL_TERMS: Array<{ term: RegExp; instead: string }> = [
	{ term: /\bisolates?\b/i, instead: 'what n8n does for each request' },
	{ term: /\b16 \/ /, instead: 'what the setting does, in words' },
	{ term: /\bstatic data\b/i, instead: 'saved with the workflow' },
	{ term: /\bsketch\b|\bBloom\b/i, instead: 'a summary of the lead IDs' },
	{ term: /\bledger\b/i, instead: 'what the trigger remembers' },
	{ term: /\bidempotent\b/i, instead: 'safe to repeat' },
	{ term: /\bthe leader\b|\(leader\)/i, instead: 'the main process' },
	{ term: /\btrigger\(\)/, instead: 'the main process' },
	{ term: /\bbaseline\b/i, instead: 'the starting point' },
	{ term: /\bwatermark\b/i, instead: 'the last poll' },
	{ term: /\bOOM\b|\bSIGKILL\b/, instead: 'out of memory, a hard stop, a power cut' },
	{
		term: /\bHMAC\b|\bHKDF\b|\bAES-256/,
		instead: 'a signature, encrypted (SECURITY.md has the method)',
	},
];

/** The CHANGELOG's part for users: each release's sections before its part for contributors. */
function changelogForUsers(): { doc: Doc; from: number; to: number } {
	const doc = readDoc('CHANGELOG.md');
	const release = doc.headings.find((candidate) => candidate.level === 2);
	const contributors = doc.headings.find((candidate) => candidate.text === 'For contributors');
	if (!release || !contributors)
		throw new Error('CHANGELOG.md has no release, or no "For contributors" part');
	return { doc, from: release.line, to: contributors.line - 1 };
}

const PAGES = [README, ...DOCS_PAGES].map((doc) => ({ doc, from: 1, to: doc.lines.length }));

const FOUND = [...PAGES, changelogForUsers()].flatMap(({ doc, from, to }) =>
	proseLines(doc, { from, to }).flatMap(({ line, text }) =>
		INTERNAL_TERMS.filter(({ term }) => term.test(text)).map(
			({ term, instead }) => `${at(doc, line)}: ${term.source} (say: ${instead})`,
		),
	),
);

describe('pages a user reads are free of internal terms', () => {
	it('checks every user page and the CHANGELOG part for users', () => {
		expect(PAGES.length).toBeGreaterThan(5);
		expect(changelogForUsers().to).toBeGreaterThan(changelogForUsers().from);
	});

	it('finds none of the internal terms', () => {
		expect(FOUND).toEqual([]);
	});

	it('would find them (the terms match what they stand for)', () => {
		const samples = ['static data', 'the leader', 'trigger()', 'SIGKILL', 'HKDF-SHA256', '16 / 4'];
		for (const sample of samples)
			expect(INTERNAL_TERMS.some(({ term }) => term.test(`a ${sample} b`))).toBe(true);
	});
});
