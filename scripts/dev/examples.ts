/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * The example workflows in examples/, as n8n imports them: each node that uses our credential
 * gets the given one (the files carry a placeholder id). Used by `npm run dev` and the e2e suite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { N8nRest, WorkflowSummary } from '../../test/e2e/lib/n8n-rest';

export const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'examples');
export const CREDENTIAL_TYPE = 'partnerLeadsApi';

export interface ExampleWorkflow {
	file: string;
	name: string;
	nodes: Array<{
		name: string;
		type: string;
		parameters: Record<string, unknown>;
		webhookId?: string;
		credentials?: Record<string, unknown>;
	}>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
}

export function readExamples(): ExampleWorkflow[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({
			file,
			...(JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Omit<
				ExampleWorkflow,
				'file'
			>),
		}));
}

/** The example with our credential in place of the placeholder. */
export function withCredential(
	example: ExampleWorkflow,
	credential: { id: string; name: string },
): ExampleWorkflow {
	return {
		...example,
		nodes: example.nodes.map((node) =>
			node.credentials?.[CREDENTIAL_TYPE]
				? { ...node, credentials: { ...node.credentials, [CREDENTIAL_TYPE]: credential } }
				: node,
		),
	};
}

/** Imports every example (inactive), as "Import from File" would, and returns what n8n stored. */
export async function importExamples(
	rest: N8nRest,
	credential: { id: string; name: string },
	adjust: (example: ExampleWorkflow) => ExampleWorkflow = (example) => example,
): Promise<Array<{ example: ExampleWorkflow; stored: WorkflowSummary }>> {
	const imported = [];
	for (const example of readExamples()) {
		const ready = adjust(withCredential(example, credential));
		const body = {
			name: ready.name,
			nodes: ready.nodes,
			connections: ready.connections,
			settings: ready.settings ?? {},
		};
		imported.push({ example: ready, stored: await rest.createWorkflow(body) });
	}
	return imported;
}
