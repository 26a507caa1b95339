/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import * as fs from 'node:fs';
import * as path from 'node:path';

import * as ts from 'typescript';

/** The longest a shipped function may be, from its first line to its last (signature included). */
const MAX_FUNCTION_LINES = 60;

const root = path.resolve(__dirname, '../..');

function shippedSources(directory: string): string[] {
	return fs.readdirSync(path.join(root, directory), { withFileTypes: true }).flatMap((entry) => {
		const relative = path.join(directory, entry.name);
		if (entry.isDirectory()) return shippedSources(relative);
		return entry.name.endsWith('.ts') ? [relative] : [];
	});
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
	const named = node as { name?: ts.Node };
	if (named.name) return named.name.getText(source);
	const parent = node.parent;
	if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
		return parent.name.getText(source);
	}
	if (ts.isCallExpression(parent)) return `${parent.expression.getText(source)}(…)`;
	return '(anonymous)';
}

/** Every function, method, accessor and arrow function longer than the limit, as file:line:name. */
function longFunctions(
	file: string,
	text = fs.readFileSync(path.join(root, file), 'utf8'),
): string[] {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
			const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
			const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
			const lines = last - first + 1;
			if (lines > MAX_FUNCTION_LINES) {
				found.push(`${file}:${first}:${nameOf(node, source)} (${lines} lines)`);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}

describe('shipped code', () => {
	const files = [...shippedSources('nodes'), ...shippedSources('credentials')];

	it('is read from the folders that ship', () => {
		expect(files).toContain(path.join('nodes', 'shared', 'transport', 'request.ts'));
	});

	it(`has no function longer than ${MAX_FUNCTION_LINES} lines`, () => {
		expect(files.flatMap((file) => longFunctions(file))).toEqual([]);
	});

	it('is measured: a function one line over the limit is named', () => {
		const body = Array.from(
			{ length: MAX_FUNCTION_LINES - 2 },
			(_line, index) => `\tcall(${index});`,
		);
		const text = ['function tooLong(): void {', ...body, '\tcall(-1);', '}'].join('\n');
		const probe = path.join('nodes', 'probe.ts');
		expect(longFunctions(probe, text)).toEqual([
			`${probe}:1:tooLong (${MAX_FUNCTION_LINES + 1} lines)`,
		]);
		const justRight = text.replace('\tcall(-1);\n', '');
		expect(longFunctions(probe, justRight)).toEqual([]);
	});
});
