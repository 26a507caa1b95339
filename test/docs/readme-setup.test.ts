/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { at, codeSpans, DOCS, packageJson, README, ROOT } from './markdown';

/**
 * What the README (and SECURITY.md, CONTRIBUTING.md) promise, checked against the code. Every
 * check reads the Markdown, so a section added or edited later is checked the same way; each
 * failure names the file, the line, the claim and what the code says. See CONTRIBUTING.md,
 * "The documentation test".
 */

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
