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
				if (!N8N_LINES[version].variables.includes(text))
					problem = `n8n ${version} reads no environment variable ${text}`;
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
