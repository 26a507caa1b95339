import { at, USER_DOCS } from './markdown';
import { N8N_LINES } from './n8n-lines';
import {
	compareVersions,
	paragraphsOf,
	recordedLineProblems,
	unversionedIn,
	VERSIONED_NAMES,
} from './n8n-versions';
import { EXAMPLE_NOTES } from './names';
import { literalsIn, SHIPPED_SOURCE } from './source-messages';

/**
 * Names n8n has only from a version on (`N8N_WEBHOOK_URL` from 2.35, durable poll cursors from
 * 2.36, Publish from 2.0) are true only with their version: every page, example note and message
 * of the nodes that names one says from which version, and what to use before it. Each version is
 * checked against the n8n lines recorded in n8n-lines-recorded.json.
 */

describe('each version-qualified name against the n8n lines recorded', () => {
	it.each(
		VERSIONED_NAMES.map((entry) => [`${entry.name} (n8n ${entry.since} on)`, entry] as const),
	)('%s', (_title, entry) => {
		expect(recordedLineProblems(entry, N8N_LINES)).toEqual([]);
	});

	it('catches a version that the recorded lines contradict', () => {
		const [webhookUrl] = VERSIONED_NAMES;
		expect(recordedLineProblems({ ...webhookUrl, since: '1.0.0' }, N8N_LINES)).not.toEqual([]);
		expect(recordedLineProblems({ ...webhookUrl, since: '2.99.0' }, N8N_LINES)).not.toEqual([]);
		expect(compareVersions('2.35.0', '2.4.1')).toBe(1);
	});
});

describe('pages, notes and messages that name one say from which n8n version', () => {
	it.each(USER_DOCS.map((doc) => [doc.file, doc] as const))('%s', (_file, doc) => {
		const units = paragraphsOf(doc).map(({ line, text }) => ({ where: at(doc, line), text }));
		const page = units.map((unit) => unit.text).join('\n');
		expect(VERSIONED_NAMES.flatMap((entry) => unversionedIn(entry, units, page))).toEqual([]);
	});

	it.each(EXAMPLE_NOTES.map((note) => [note.file, note] as const))('%s', (_file, note) => {
		const text = note.lines.join('\n');
		const units = [{ where: `${note.file} note`, text }];
		expect(VERSIONED_NAMES.flatMap((entry) => unversionedIn(entry, units, text))).toEqual([]);
	});

	it("the nodes' messages and hints", () => {
		const literals = literalsIn(SHIPPED_SOURCE);
		const problems = literals.flatMap(({ text, file, line }) => {
			const unit = [{ where: `${file}:${line}`, text }];
			return [
				...VERSIONED_NAMES.filter((entry) => entry.kind === 'variable').flatMap((entry) =>
					unversionedIn({ ...entry, scope: 'paragraph' }, unit, text),
				),
				// a message that tells the user to publish says what n8n 1.x calls it
				...(/\bpublish (it|the workflow|this workflow)\b/i.test(text) && !/\bn8n 1\.x\b/.test(text)
					? [`${file}:${line}: says to publish without what n8n 1.x calls it (activate)`]
					: []),
			];
		});
		expect(problems).toEqual([]);
	});

	it('catches a page that names N8N_WEBHOOK_URL for all of n8n 2.x', () => {
		const [webhookUrl] = VERSIONED_NAMES;
		const units = [{ where: 'x.md:1', text: 'Set `N8N_WEBHOOK_URL` (`WEBHOOK_URL` on n8n 1.x).' }];
		expect(unversionedIn(webhookUrl, units, units[0].text)).toHaveLength(1);
		const fixed = [
			{
				where: 'x.md:1',
				text: 'Set `N8N_WEBHOOK_URL` (n8n 2.35 and later; `WEBHOOK_URL` before).',
			},
		];
		expect(unversionedIn(webhookUrl, fixed, fixed[0].text)).toEqual([]);
	});
});
