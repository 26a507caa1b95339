import { USER_DOCS } from './markdown';
import { CURRENT_LINE, N8N_LINES, PREVIOUS_LINE } from './n8n-lines';
import type { Line } from './names';
import { isPackageName, namedInDocuments, PORTAL_MENU, quotedNamesInSource } from './names';

/**
 * Every menu path, button, option and environment variable the user documents and the examples'
 * notes name exists: in the package (its nodes, credential, parameters, options, operations), in
 * the portal (spec, section 5) or in the n8n line the text is written for ("(… n8n 1.x …)" is
 * the previous line, everything else the current one), as n8n-lines-recorded.json records them from the
 * installed lines (the browser test compares the file with them).
 */

const versionOf = (line: Line) => (line === 'previous' ? PREVIOUS_LINE : CURRENT_LINE);

/**
 * Variables only n8n lines older than the recorded ones read, and the version that stopped
 * reading them: community nodes are AI Agent tools without a setting from 1.85.0 (n8n-io/n8n
 * #14042); the floor (scripts/floor/run.ts, 1.82.3) needs it.
 */
const OLDER_LINE_VARIABLES: Record<string, string> = {
	N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: '1.85.0',
};

function variableProblem(text: string, version: string): string {
	const readByRecorded = [CURRENT_LINE, PREVIOUS_LINE].some((recorded) =>
		N8N_LINES[recorded].variables.includes(text),
	);
	if (text in OLDER_LINE_VARIABLES)
		return readByRecorded
			? `n8n ${CURRENT_LINE} or ${PREVIOUS_LINE} reads ${text}, said to end at ${OLDER_LINE_VARIABLES[text]}: take it out of OLDER_LINE_VARIABLES`
			: '';
	return N8N_LINES[version].variables.includes(text)
		? ''
		: `n8n ${version} reads no environment variable ${text}`;
}

function known(word: string, line: Line, extra: string[]): boolean {
	return (
		PORTAL_MENU.includes(word) ||
		isPackageName(word, extra) ||
		N8N_LINES[versionOf(line)].texts.includes(word)
	);
}

describe('names the documents and the examples give exist', () => {
	const named = namedInDocuments(USER_DOCS);

	it('the documents name menu paths, options and variables', () => {
		expect(named.filter((item) => item.kind === 'menu path').length).toBeGreaterThan(5);
		expect(named.filter((item) => item.kind === 'variable').length).toBeGreaterThan(5);
		expect(named.filter((item) => item.kind === 'name').length).toBeGreaterThan(30);
	});

	it.each(named.map((item) => [`${item.where} ${item.kind} "${item.text}"`, item] as const))(
		'%s',
		(_title, { kind, text, line, extra, where }) => {
			const version = versionOf(line);
			let problem = '';
			if (kind === 'variable') {
				problem = variableProblem(text, version);
			} else {
				const words = kind === 'menu path' ? text.split(/\s+>\s+/) : [text];
				const unknown = words.filter((word) => !known(word, line, extra));
				if (unknown.length)
					problem = `${unknown.map((word) => `"${word}"`).join(', ')} is no node, parameter, option or operation of the package, no portal menu, and not in n8n ${version}'s editor`;
			}
			expect(problem ? `${where}: ${kind} "${text}": ${problem}` : 'exists').toBe('exists');
		},
	);
});

describe('names the nodes quote in their messages and hints exist', () => {
	const quoted = quotedNamesInSource();

	it('the nodes quote names', () => {
		expect(quoted.length).toBeGreaterThan(10);
	});

	it.each(quoted.map((item) => [`${item.where} '${item.name}'`, item] as const))(
		'%s',
		(_title, { name, where }) => {
			const exists =
				isPackageName(name) ||
				[CURRENT_LINE, PREVIOUS_LINE].every((version) => N8N_LINES[version].texts.includes(name));
			expect(
				exists
					? 'exists'
					: `${where}: '${name}' is no field, option, operation or node of the package, and no button of n8n's editor on both lines`,
			).toBe('exists');
		},
	);
});
