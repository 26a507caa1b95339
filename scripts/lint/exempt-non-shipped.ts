/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npx n8n-node lint` lints the whole repository with n8n's default rules, which are made for
 * code that runs inside n8n Cloud's sandbox. Tests, scripts and benchmarks run in Node next to
 * n8n and are never shipped, so each of their files names the sandbox rules it is exempt from
 * in one header comment. This adds or completes that header for files under test/, scripts/
 * and bench/ that break only those rules (e.g. new files after a merge); anything else is
 * listed and left to fix by hand. Shipped code (nodes/, credentials/) is never touched.
 *
 *   npx ts-node --transpile-only scripts/lint/exempt-non-shipped.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { ESLint } from 'eslint';

const NOT_SHIPPED = ['test', 'scripts', 'bench'];

/** The rules that exist for the sandbox or for shipped code only. */
const SANDBOX_RULES = new Set([
	'@n8n/community-nodes/no-restricted-globals',
	'@n8n/community-nodes/no-restricted-imports',
	'@n8n/community-nodes/no-hardcoded-secrets',
	'@n8n/community-nodes/require-node-api-error',
	'@n8n/community-nodes/node-usable-as-tool',
	'@typescript-eslint/no-require-imports',
	'no-console',
]);

const HEADER = /^\/\* eslint-disable ([^*]*?) -- ([^*]*) \*\/\n/;

function withHeader(source: string, rules: string[], who: string): string {
	const shebang = /^#![^\n]*\n/.exec(source)?.[0] ?? '';
	const body = source.slice(shebang.length);
	const existing = HEADER.exec(body);
	const all = new Set([
		...(existing ? existing[1].split(',').map((rule) => rule.trim()) : []),
		...rules,
	]);
	const reason = existing
		? existing[2]
		: `${who}: runs in Node next to n8n, never inside it, never shipped`;
	const header = `/* eslint-disable ${[...all].sort().join(', ')} -- ${reason} */\n`;
	return shebang + header + (existing ? body.slice(existing[0].length) : body);
}

async function main(): Promise<number> {
	const root = process.cwd();
	const results = await new ESLint({ cwd: root }).lintFiles(NOT_SHIPPED);
	let left = 0;
	for (const result of results) {
		const file = path.relative(root, result.filePath);
		const rules = [...new Set(result.messages.map((message) => message.ruleId ?? 'parse'))];
		if (rules.length === 0) continue;
		const others = rules.filter((rule) => !SANDBOX_RULES.has(rule));
		if (others.length > 0) {
			left++;
			console.log(`left as is: ${file} (${others.join(', ')})`);
			continue;
		}
		const who = file.startsWith('scripts/')
			? 'maintainer script'
			: file.startsWith('bench/')
				? 'bench code'
				: 'test code';
		writeFileSync(result.filePath, withHeader(readFileSync(result.filePath, 'utf8'), rules, who));
		console.log(`exempted: ${file} (${rules.join(', ')})`);
	}
	return left === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
