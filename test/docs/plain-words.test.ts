import type { Doc } from './markdown';
import { at, DOCS_PAGES, parseDoc, proseLines, README, readDoc } from './markdown';

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
	{ term: /\bupsert/i, instead: 'creates or updates' },
	{ term: /\bjitter\b/i, instead: 'a random part in the wait' },
	{ term: /\bhex digest\b/i, instead: 'written as hexadecimal text' },
	{ term: /\bciphertext\b/i, instead: 'the encrypted form' },
	{ term: /\bconstant-time\b/i, instead: 'takes the same time wherever they differ' },
	{ term: /\bsoak test\b/i, instead: 'the long-running fault test' },
	{ term: /\bround-robin\b/i, instead: 'each request to the next process in turn' },
	{ term: /\breadiness probes?\b/i, instead: "n8n's health check" },
	{ term: /\bdatabase transaction\b/i, instead: 'both saved, or neither' },
	{ term: /\bshared execution\b/i, instead: 'an execution of several leads' },
	{ term: /\bin flight\b/i, instead: 'on their way, waiting to start' },
	{ term: /\bsummary of fixed size\b/i, instead: 'a compact form that stays the same size' },
	{ term: /\bpayload\b/i, instead: 'the content' },
];

/**
 * Words a user page keeps (n8n's or the service's names for things), each explained on the
 * page that uses it: where the term is, the explanation is too.
 */
const EXPLAINED_TERMS: Array<{ file: string; term: RegExp; explanation: RegExp }> = [
	{
		file: 'README.md',
		term: /\bpicklists?\b/i,
		explanation: /picklists \(fields with a fixed list of values\)/,
	},
	{
		file: 'README.md',
		term: /\baudience\b/i,
		explanation: /audience \(which of the service's environments a token is for\)/,
	},
	{
		file: 'README.md',
		term: /\bself-serve\b/i,
		explanation: /what the service calls \*self-serve\* keys: every lead created with them needs/,
	},
	{
		file: 'README.md',
		term: /Idempotency-Key/,
		explanation: /`Idempotency-Key` header, by which your system can tell a repeat/,
	},
	{
		file: 'README.md',
		term: /\bdurable poll cursors\b/i,
		explanation:
			/durable poll cursors \(n8n saving the Polling Trigger's progress together with the execution it starts\)/,
	},
	{
		file: 'docs/triggers.md',
		term: /\bat least once\b/i,
		explanation: /\*at least once\* \(it may send the same event again/,
	},
	{
		file: 'docs/triggers.md',
		term: /\bwebhook process/i,
		explanation:
			/webhook process \(in queue mode, an n8n process that only receives webhook calls\)/,
	},
	{
		file: 'docs/troubleshooting.md',
		term: /\bbearer\b/i,
		explanation:
			/`Authorization: Bearer` header, where the service expects the short-lived access token/,
	},
	{
		file: 'docs/speed-and-rate-limits.md',
		term: /\b5xx\b/,
		explanation: /Server errors \(HTTP 5xx\)/,
	},
	{
		file: 'docs/speed-and-rate-limits.md',
		term: /Retry-After/,
		explanation: /`Retry-After` header says \(how long to wait before asking again\)/,
	},
	{
		file: 'docs/speed-and-rate-limits.md',
		term: /\bmedians?\b/i,
		explanation: /medians \(the middle value\)/,
	},
	{ file: 'docs/speed-and-rate-limits.md', term: /\bTLS\b/, explanation: /HTTPS \(TLS\)/ },
	{
		file: 'docs/operations.md',
		term: /X-Forwarded/,
		explanation: /\(they tell n8n who called and at which address\)/,
	},
	{
		file: 'docs/operations.md',
		term: /\bwebsockets?\b/i,
		explanation: /live connection to n8n \(websockets\)/,
	},
	{
		file: 'docs/operations.md',
		term: /\bbind mount\b/i,
		explanation: /bind mount \(a folder of the host/,
	},
	{
		file: 'docs/operations.md',
		term: /\bnamed volume\b/i,
		explanation: /named volume \(storage Docker manages/,
	},
	{
		file: 'docs/actions.md',
		term: /\buser-delegated\b/i,
		explanation:
			/user-delegated token\*\* \(a token the provider issues for a person's portal account/,
	},
	{
		file: 'docs/actions.md',
		term: /\$fromAI/,
		explanation:
			/`\$fromAI` expressions \(n8n's `\{\{ \$fromAI\('key', 'description'\) \}\}`, a value the model supplies/,
	},
	{
		file: 'SECURITY.md',
		term: /\bHMAC\b|\bHKDF\b|\bAES-256|\bstatic data\b/,
		explanation: /In plain words: \*static data\* is what n8n\s+saves with a workflow/,
	},
];

/** Why a page uses a term of EXPLAINED_TERMS without its explanation, if it does. */
function unexplained(doc: Doc, entry: (typeof EXPLAINED_TERMS)[number]): string[] {
	const prose = proseLines(doc);
	const first = prose.find(({ text }) => entry.term.test(text));
	if (!first) return [];
	const text = prose.map((line) => line.text).join('\n');
	return entry.explanation.test(text)
		? []
		: [
				`${at(doc, first.line)}: ${entry.term.source} without its explanation ${entry.explanation.source}`,
			];
}

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

	it('explains, on each page that keeps them, the words a user may not know', () => {
		expect(EXPLAINED_TERMS.flatMap((entry) => unexplained(readDoc(entry.file), entry))).toEqual([]);
	});

	it('would find a kept word without its explanation, and take it with one', () => {
		const entry = {
			file: 'planted.md',
			term: /\bbind mount\b/i,
			explanation: /bind mount \(a folder/,
		};
		const bare = parseDoc('planted.md', 'Hand it a bind mount.\n');
		const explained = parseDoc('planted.md', 'Hand it a bind mount (a folder of the host).\n');
		expect(unexplained(bare, entry)).not.toEqual([]);
		expect(unexplained(explained, entry)).toEqual([]);
	});

	it('would find them (the terms match what they stand for)', () => {
		const samples = [
			'static data',
			'the leader',
			'trigger()',
			'SIGKILL',
			'HKDF-SHA256',
			'16 / 4',
			'upsert',
			'round-robin',
			'readiness probes',
			'in flight',
		];
		for (const sample of samples)
			expect(INTERNAL_TERMS.some(({ term }) => term.test(`a ${sample} b`))).toBe(true);
	});
});
