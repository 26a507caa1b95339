/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import * as path from 'node:path';

import * as ts from 'typescript';

import { defineOperation } from '../../nodes/PartnerLeads/actions/common/defineOperation';

/**
 * The operation contract is checked by the compiler: `run` takes what `prepare` gives. The
 * cases below never run; each `@ts-expect-error` line must be an error, and an unneeded one
 * is itself an error (TS2578), so the file compiles only while the types disagree where they
 * should. `npm run typecheck` checks this file, and the test below compiles it with the
 * project's settings, so jest fails too when the contract stops being enforced.
 */
export const contractCases = [
	// prepare gives a string, run takes an object
	// @ts-expect-error run's input is not prepare's output
	defineOperation(async function () {
		return {
			prepare: (itemIndex: number) => String(itemIndex),
			run: async (_itemIndex, body: { leadId: string }) => ({ id: body.leadId }),
		};
	}),
	// run asks for more than prepare gives (method parameters would let this through)
	// @ts-expect-error run's input has a field prepare does not give
	defineOperation(async function () {
		return {
			prepare: (itemIndex: number) => ({ leadId: String(itemIndex) }),
			run: async (_itemIndex, item: { leadId: string; simplify: boolean }) => ({
				id: item.leadId,
				simplify: item.simplify,
			}),
		};
	}),
	// an untyped run parameter is `unknown`, never `any`: it cannot be used unchecked
	defineOperation(async function () {
		return {
			prepare: (itemIndex: number) => ({ leadId: String(itemIndex) }),
			run: async (_itemIndex, item) => {
				// @ts-expect-error an unannotated input must be annotated or checked before use
				const leadId: string = item.leadId;
				return { id: leadId };
			},
		};
	}),
	// matching steps compile
	defineOperation(async function () {
		return {
			parallel: true,
			prepare: (itemIndex: number) => ({ leadId: String(itemIndex), simplify: true }),
			run: async (_itemIndex, { leadId, simplify }: { leadId: string; simplify: boolean }) => ({
				id: leadId,
				simplify,
			}),
		};
	}),
];

function diagnosticsOf(file: string): string[] {
	const root = path.resolve(__dirname, '../..');
	const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), (name) =>
		ts.sys.readFile(name),
	);
	const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
	const program = ts.createProgram([file], { ...options, noEmit: true });
	return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
		const where = diagnostic.file
			? `${path.relative(root, diagnostic.file.fileName)}:${
					diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
				}`
			: '';
		return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
	});
}

describe('the operation contract', () => {
	it('is enforced by the compiler: every mismatch above is an error, the matching steps are not', () => {
		expect(contractCases).toHaveLength(4);
		expect(diagnosticsOf(__filename)).toEqual([]);
	});
});
