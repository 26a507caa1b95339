/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IConnections, INode, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { EXAMPLE_NOTES } from '../docs/names';
import {
	ACTION_NODE_TYPE,
	ACTION_TOOL_NODE_TYPE,
	CREDENTIAL_TYPE,
	TRIGGER_NODE_TYPE,
} from '../harness/harness';
import { PACKAGE, PackageNodeTypes } from '../harness/node-types';
import { STANDARD_LEAD_FIELD_IDS } from '../simulator';
import { claimProblems, shippedCodeHasWord } from './note-claims';
import { parameterProblems } from './parameter-check';

/**
 * The workflows in examples/ must import into n8n as they are. Our nodes are checked
 * against their descriptions; n8n's own nodes only by type and version, since their
 * descriptions are not installed here.
 */

const EXAMPLES = join(__dirname, '..', '..', 'examples');

/** n8n-nodes-base types the examples may use, with versions every supported n8n has. */
const BASE_NODE_VERSIONS: Record<string, number[]> = {
	'n8n-nodes-base.formTrigger': [2.2],
	'n8n-nodes-base.scheduleTrigger': [1.2],
	'n8n-nodes-base.httpRequest': [4.2],
	'n8n-nodes-base.set': [3.4],
	'n8n-nodes-base.stickyNote': [1],
	'n8n-nodes-base.stopAndError': [1],
	'@n8n/n8n-nodes-langchain.chatTrigger': [1.1],
	'@n8n/n8n-nodes-langchain.agent': [3],
	'@n8n/n8n-nodes-langchain.lmChatOpenAi': [1.2],
	'@n8n/n8n-nodes-langchain.memoryBufferWindow': [1.3],
};

const POLLING_TRIGGER_NODE_TYPE = `${PACKAGE}.partnerLeadsPollingTrigger`;
const OUR_TYPES = [
	ACTION_NODE_TYPE,
	ACTION_TOOL_NODE_TYPE,
	TRIGGER_NODE_TYPE,
	POLLING_TRIGGER_NODE_TYPE,
];

/** Our node types; `undefined` for n8n's own, which Workflow accepts as "not installed". */
class ExampleNodeTypes implements INodeTypes {
	private readonly ours = new PackageNodeTypes();

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.ours.getByName(type);
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return (
			OUR_TYPES.includes(type) ? this.ours.getByNameAndVersion(type, version) : undefined
		) as INodeType;
	}

	getKnownTypes() {
		return {};
	}
}

interface ExampleFile {
	name: string;
	nodes: INode[];
	connections: IConnections;
	settings?: Record<string, unknown>;
}

const files = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.sort();
const nodeTypes = new ExampleNodeTypes();

function load(file: string): ExampleFile {
	return JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as ExampleFile;
}

function connectedPairs(connections: IConnections): Array<[string, string]> {
	return Object.entries(connections).flatMap(([source, byType]) =>
		Object.values(byType)
			.flat()
			.flatMap((targets) =>
				(targets ?? []).map((target): [string, string] => [source, target.node]),
			),
	);
}

it('there are the seven documented examples, one for each trigger at least', () => {
	expect(files).toEqual([
		'agent-lead-intake.json',
		'create-lead-from-form.json',
		'credit-partner-when-won-polling.json',
		'credit-partner-when-won.json',
		'new-leads-polling.json',
		'reconcile-leads-hourly.json',
		'sync-lead-updates.json',
	]);
	const types = files.flatMap((file) => load(file).nodes.map((node) => node.type));
	expect(types).toEqual(expect.arrayContaining([TRIGGER_NODE_TYPE, POLLING_TRIGGER_NODE_TYPE]));
});

describe.each(files)('examples/%s', (file) => {
	const example = load(file);
	const ours = example.nodes.filter((node) => OUR_TYPES.includes(node.type));

	it('is a complete workflow: named nodes with ids, types, versions, positions and parameters', () => {
		expect(typeof example.name).toBe('string');
		expect(example.settings?.executionOrder).toBe('v1');
		for (const node of example.nodes) {
			expect(node).toEqual(
				expect.objectContaining({
					id: expect.any(String),
					name: expect.any(String),
					type: expect.any(String),
					typeVersion: expect.any(Number),
					parameters: expect.any(Object),
				}),
			);
			expect(node.position).toEqual([expect.any(Number), expect.any(Number)]);
		}
		expect(new Set(example.nodes.map((node) => node.id)).size).toBe(example.nodes.length);
		expect(new Set(example.nodes.map((node) => node.name)).size).toBe(example.nodes.length);
		expect(ours.length).toBeGreaterThan(0);
	});

	it('uses only our node types and n8n node versions every supported n8n has', () => {
		for (const node of example.nodes) {
			if (OUR_TYPES.includes(node.type)) {
				const versions = [nodeTypes.getByNameAndVersion(node.type).description.version].flat();
				expect(versions).toContain(node.typeVersion);
			} else {
				expect(BASE_NODE_VERSIONS[node.type]).toContain(node.typeVersion);
			}
		}
	});

	it('loads into an n8n Workflow with every connection between existing nodes', () => {
		const workflow = new Workflow({
			id: file,
			name: example.name,
			nodes: structuredClone(example.nodes),
			connections: example.connections,
			active: false,
			nodeTypes,
		});
		const pairs = connectedPairs(example.connections);
		expect(pairs.length).toBeGreaterThan(0);
		for (const [source, target] of pairs) {
			expect(workflow.getNode(source)).not.toBeNull();
			expect(workflow.getNode(target)).not.toBeNull();
		}
		// Every node but the note is wired in.
		for (const node of example.nodes.filter(
			(candidate) => candidate.type !== 'n8n-nodes-base.stickyNote',
		)) {
			expect(pairs.some(([source, target]) => source === node.name || target === node.name)).toBe(
				true,
			);
		}
	});

	it('sets only parameters our nodes show for the chosen operation, with valid values', () => {
		for (const node of ours) {
			const { description } = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			expect({
				node: node.name,
				problems: parameterProblems(description, node, STANDARD_LEAD_FIELD_IDS),
			}).toEqual({
				node: node.name,
				problems: [],
			});
			const issues = NodeHelpers.getNodeParametersIssues(description.properties, node, description);
			expect({ node: node.name, issues: issues?.parameters ?? {} }).toEqual({
				node: node.name,
				issues: {},
			});
		}
	});

	it('names our credential as a placeholder to choose on import; webhook ids only where n8n renews them', () => {
		for (const node of ours) {
			expect(Object.keys(node.credentials ?? {})).toEqual([CREDENTIAL_TYPE]);
			expect(node.credentials?.[CREDENTIAL_TYPE]).toEqual({
				id: expect.any(String),
				name: expect.any(String),
			});
		}
		// n8n's editor gives a webhook node without an id one of its own on import, and renews the
		// id of its own Form Trigger; it keeps any other id as it is, so a second copy of the
		// example with our trigger's id in the file could not be published next to the first
		for (const node of example.nodes.filter((candidate) => candidate.type === TRIGGER_NODE_TYPE))
			expect(node.webhookId).toBeUndefined();
		for (const node of example.nodes.filter(
			(candidate) => candidate.type === 'n8n-nodes-base.formTrigger',
		))
			expect(node.webhookId).toMatch(/^[0-9a-f-]{36}$/);
	});
});

describe.each(EXAMPLE_NOTES)('the note of $file', ({ file, lines, ownNames }) => {
	const note = lines.join('\n');

	it('is there, and says what to set', () => {
		expect(note).toMatch(/credential/);
	});

	it('says nothing about missed events, downtime or duplicates that the code no longer does', () => {
		expect(claimProblems(note).map((problem) => `${file}: ${problem}`)).toEqual([]);
	});

	it('names only output fields the nodes produce or the example itself writes', () => {
		const fields = [...note.matchAll(/`([a-z][A-Za-z]*)(?::[^`]*)?`/g)].map((match) => match[1]);
		expect(
			fields
				.filter((field) => !ownNames.includes(field) && !shippedCodeHasWord(field))
				.map((field) => `${file}: \`${field}\` is no field the nodes output or the example writes`),
		).toEqual([]);
	});
});

describe('the note check itself', () => {
	it('refuses the advice the sync example gave before the trigger recovered missed events', () => {
		expect(
			claimProblems(
				'Events can still be missed while n8n is down: run the *reconcile* example on a schedule.',
			),
		).toEqual([expect.stringMatching(/no longer holds/)]);
		expect(
			claimProblems(
				'Webhooks are at-least-once with no replay: events sent while n8n was down or unreachable are lost.',
			),
		).toEqual([expect.stringMatching(/no longer holds/)]);
	});

	it('asks for a claim it does not know, and accepts the ones that hold', () => {
		expect(claimProblems('Deleted leads are never lost.')).toEqual([
			expect.stringMatching(/none of the claims/),
		]);
		expect(
			claimProblems(
				'Updates made while n8n was stopped or unreachable run once it is back. Duplicate deliveries are dropped by the trigger.',
			),
		).toEqual([]);
	});
});

describe('the parameter check itself', () => {
	const { description } = nodeTypes.getByNameAndVersion(ACTION_NODE_TYPE, 1);
	const node = (parameters: INode['parameters']): INode => ({
		id: 'n',
		name: 'Node',
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	});
	const problems = (parameters: INode['parameters']) =>
		parameterProblems(description, node(parameters), STANDARD_LEAD_FIELD_IDS);

	it('accepts a correct Get Many', () => {
		expect(
			problems({
				resource: 'lead',
				operation: 'getMany',
				returnAll: true,
				filters: { updatedAfter: '={{ $now }}' },
			}),
		).toEqual([]);
	});

	it('catches unknown names, parameters of another operation, bad values, keys and modes', () => {
		expect(problems({ resource: 'lead', operation: 'getMany', colour: 'red' })).toEqual([
			expect.stringMatching(/^colour: not a parameter/),
		]);
		expect(problems({ resource: 'lead', operation: 'getMany', matchField: 'email' })).toEqual([
			expect.stringMatching(/^matchField: not shown/),
		]);
		expect(problems({ resource: 'lead', operation: 'fetch' })).toEqual([
			expect.stringMatching(/^operation: "fetch" is not one of/),
		]);
		expect(
			problems({ resource: 'lead', operation: 'getMany', filters: { updatedSince: 'x' } }),
		).toEqual([expect.stringMatching(/^filters\.updatedSince: not an option/)]);
		expect(
			problems({
				resource: 'lead',
				operation: 'get',
				leadId: { __rl: true, mode: 'url', value: 'x' },
			}),
		).toEqual([expect.stringMatching(/^leadId\.mode: "url"/)]);
		expect(
			problems({
				resource: 'lead',
				operation: 'create',
				leadFields: {
					mappingMode: 'defineBelow',
					value: { favouriteColour: 'red' },
					matchingColumns: [],
					schema: [],
				},
			}),
		).toEqual([expect.stringMatching(/^leadFields\.value\.favouriteColour/)]);
	});

	it('checks groups of values and takes values loaded from the schema as text', () => {
		const trigger = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1).description;
		const check = (parameters: INode['parameters']) =>
			parameterProblems(
				trigger,
				{ ...node(parameters), type: TRIGGER_NODE_TYPE },
				STANDARD_LEAD_FIELD_IDS,
			);
		const conditions = [{ field: 'status', values: ['won'], otherValues: 'closed won' }];
		expect(
			check({ events: ['lead/update'], watchedFields: ['status'], changedTo: { conditions } }),
		).toEqual([]);
		expect(
			check({
				events: ['lead/update'],
				watchedFields: 'status',
				changedTo: { condition: [], conditions: [{ field: 'status', colour: 'red' }] },
			}),
		).toEqual([
			expect.stringMatching(/^watchedFields: must be a list of text/),
			expect.stringMatching(/^changedTo\.condition: not a group/),
			expect.stringMatching(/^changedTo\.conditions\[0\]\.colour: not an option/),
		]);
	});
});
