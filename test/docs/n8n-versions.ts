import type { Doc } from './markdown';
import type { N8nLines } from './n8n-lines';

/**
 * Names that n8n has only from a version on: an environment variable it reads, a button its
 * editor shows. A document, a note or a message that names one must say from which n8n version,
 * and what to use before it (see n8n-versions.test.ts). Each entry is also checked against the
 * lines recorded in n8n-lines-recorded.json: a recorded line at or after `since` has the name, one
 * before it does not (and has `before`, where there is one).
 *
 * Where the versions come from: `N8N_WEBHOOK_URL`, n8n 2.35 (earlier n8n reads `WEBHOOK_URL`);
 * durable poll cursors, n8n's scheduler environment variables page
 * (https://docs.n8n.io/hosting/configuration/environment-variables/scheduler/): the cursors from
 * 2.36.0, needing the scheduler's three settings from 2.37.0, `N8N_SCHEDULER_POLL_TIMEOUT` from
 * 2.37.0, `N8N_SCHEDULER_POLL_TRIGGERS_ENABLED` from 2.33.0; Publish, n8n 2.0 (1.x activates).
 */
export interface VersionedName {
	name: string;
	kind: 'variable' | 'text';
	/** The first n8n version that has it. */
	since: string;
	/** What n8n before `since` has in its place, if anything. */
	before?: string;
	/** Where the version must be said: in the same paragraph, or somewhere on the same page. */
	scope: 'paragraph' | 'page';
	/** Words that say the version (any one of them); for `before`, a pattern that names it. */
	says: RegExp;
	saysBefore?: RegExp;
	/** How the name is found in a text. */
	named: RegExp;
}

export const VERSIONED_NAMES: VersionedName[] = [
	{
		name: 'N8N_WEBHOOK_URL',
		kind: 'variable',
		since: '2.35.0',
		before: 'WEBHOOK_URL',
		scope: 'paragraph',
		says: /\b2\.35\b/,
		saysBefore: /(?<!N8N_)\bWEBHOOK_URL\b/,
		named: /\bN8N_WEBHOOK_URL\b/,
	},
	{
		name: 'N8N_POLLER_DURABLE_CURSORS_ENABLED',
		kind: 'variable',
		since: '2.36.0',
		scope: 'page',
		says: /\b2\.3[67]\b/,
		named: /\bN8N_POLLER_DURABLE_CURSORS_ENABLED\b|\bdurable (poll )?cursors\b/i,
	},
	{
		name: 'N8N_SCHEDULER_POLL_TRIGGERS_ENABLED',
		kind: 'variable',
		since: '2.33.0',
		scope: 'page',
		says: /\b2\.3[67]\b/,
		named: /\bN8N_SCHEDULER_POLL_TRIGGERS_ENABLED\b/,
	},
	{
		name: 'N8N_SCHEDULER_POLL_TIMEOUT',
		kind: 'variable',
		since: '2.37.0',
		scope: 'paragraph',
		says: /\b2\.37\b/,
		named: /\bN8N_SCHEDULER_POLL_TIMEOUT\b/,
	},
	{
		name: 'Publish',
		kind: 'text',
		since: '2.0.0',
		scope: 'page',
		says: /(activat\w*|active)\b[^.]*\bn8n 1\.x\b|\bn8n 1\.x\b[^.]*\bactivat/i,
		// "its path and payload are not published" is the service's, not n8n's
		named: /(?<!\bnot )\bpublish(ed|es|ing)?\b/i,
	},
];

/** -1, 0 or 1 as version a is before, the same as or after version b. */
export function compareVersions(a: string, b: string): number {
	const [x, y] = [a, b].map((version) => version.split('.').map(Number));
	for (let index = 0; index < Math.max(x.length, y.length); index++) {
		const difference = (x[index] ?? 0) - (y[index] ?? 0);
		if (difference !== 0) return Math.sign(difference);
	}
	return 0;
}

/** What a recorded line says against an entry: problems, none when the entry's version holds. */
export function recordedLineProblems(entry: VersionedName, lines: N8nLines): string[] {
	return Object.entries(lines).flatMap(([version, line]) => {
		const has = (name: string) =>
			(entry.kind === 'variable' ? line.variables : line.texts).includes(name);
		const after = compareVersions(version, entry.since) >= 0;
		const problems: string[] = [];
		if (after && !has(entry.name))
			problems.push(
				`n8n ${version} is recorded without ${entry.name}, said to be there from ${entry.since}`,
			);
		if (!after && has(entry.name))
			problems.push(
				`n8n ${version} is recorded with ${entry.name}, said to come only in ${entry.since}`,
			);
		if (!after && entry.before && !has(entry.before))
			problems.push(
				`n8n ${version} is recorded without ${entry.before}, said to be what it has before ${entry.since}`,
			);
		return problems;
	});
}

/** The paragraphs of a page: runs of non-blank lines outside fenced code, with their first line. */
export function paragraphsOf(doc: Doc): Array<{ line: number; text: string }> {
	const paragraphs: Array<{ line: number; text: string }> = [];
	let current: { line: number; lines: string[] } | undefined;
	doc.lines.forEach((text, index) => {
		const line = index + 1;
		if (doc.codeLines.has(line) || !text.trim()) {
			if (current) paragraphs.push({ line: current.line, text: current.lines.join('\n') });
			current = undefined;
			return;
		}
		if (current) current.lines.push(text);
		else current = { line, lines: [text] };
	});
	if (current) paragraphs.push({ line: current.line, text: current.lines.join('\n') });
	return paragraphs;
}

/** Where a text names a versioned name without saying from which version (and what before). */
export function unversionedIn(
	entry: VersionedName,
	units: Array<{ where: string; text: string }>,
	page: string,
): string[] {
	if (!units.some((unit) => entry.named.test(unit.text))) return [];
	const scoped = entry.scope === 'page' ? [{ where: units[0]?.where ?? '', text: page }] : units;
	return scoped
		.filter((unit) => entry.named.test(unit.text))
		.flatMap((unit) => {
			const missing = [
				...(entry.says.test(unit.text) ? [] : [`the version (${entry.says.source})`]),
				...(entry.saysBefore && !entry.saysBefore.test(unit.text)
					? [`what to use before it (${entry.before})`]
					: []),
			];
			return missing.length
				? [`${unit.where}: names ${entry.name} but does not say ${missing.join(' or ')}`]
				: [];
		});
}
