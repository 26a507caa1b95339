/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: reads the package's sources in Node, never shipped */
import { Session } from 'node:inspector/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { INodeParameters } from 'n8n-workflow';

import type { Setup } from '../nodes/partner-leads-trigger/helpers';
import { ALL_TOPICS, setUp } from '../nodes/partner-leads-trigger/helpers';
import { RECOVERY_TIMING } from '../../nodes/PartnerLeadsTrigger/recovery/timing';

/**
 * The walk of one delivery as a newcomer reads it (issue 66): the pipeline's own files (the
 * trigger's root, `delivery/`, `runs/`) that it runs code in, and the files whose functions they
 * call by name, from `webhook()` to the finished execution. Not named: the files behind those
 * (the stores behind `state/records.ts`, the transport behind `shared/leadItem.ts`) and the leaves
 * read once and understood. Taken from V8's own call counts while n8n-core serves the delivery,
 * so the walk docs/ARCHITECTURE.md lists is the road the code takes.
 */

const ROOT = join(__dirname, '..', '..');
const TRIGGER = 'nodes/PartnerLeadsTrigger/';
const LEAVES = [
	'nodes/shared/isoTime.ts',
	'nodes/shared/topics.ts',
	'nodes/shared/transport/record.ts',
	'nodes/shared/transport/connection.ts',
];

/** The pipeline's stages: the trigger's root files and those of `delivery/` and `runs/`. */
const isPipeline = (file: string) =>
	file.startsWith(TRIGGER) && /^(delivery\/|runs\/)?[^/]+\.ts$/.test(file.slice(TRIGGER.length));

/** Per shipped file, the names of its functions called since the last take (counts reset). */
type Called = Map<string, Set<string>>;

interface FunctionCoverage {
	functionName: string;
	ranges: Array<{ count: number }>;
}

async function functionsCalled(session: Session): Promise<Called> {
	const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as {
		result: Array<{ url: string; functions: FunctionCoverage[] }>;
	};
	const called: Called = new Map();
	for (const script of result) {
		const path = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
		const file = relative(ROOT, path);
		if (!/^(nodes|credentials)\/.*\.ts$/.test(file)) continue;
		const names = script.functions.filter((fn) => fn.ranges[0].count > 0);
		if (names.length > 0) called.set(file, new Set(names.map((fn) => fn.functionName)));
	}
	return called;
}

interface Import {
	from: string;
	/** the bindings imported as values (not `type`) */
	values: string[];
}

/** A shipped file's imports of other shipped files, resolved to their paths. */
function importsOf(file: string): Import[] {
	const source = readFileSync(join(ROOT, file), 'utf8');
	const imports: Import[] = [];
	for (const [, typeOnly, names, path] of source.matchAll(
		/^import (type )?\{([^}]*)\} from '(\.[^']+)';/gm,
	)) {
		const values = typeOnly
			? []
			: names
					.split(',')
					.map((name) => name.trim())
					.filter((name) => name !== '' && !name.startsWith('type '))
					.map((name) => name.split(' as ')[0]);
		imports.push({ from: `${join(dirname(file), path)}.ts`, values });
	}
	return imports;
}

/** The walk's files: the pipeline's files entered, and those whose functions they call by name. */
function walkOf(called: Called): string[] {
	const pipeline = [...called.keys()].filter(isPipeline);
	const named = new Set(pipeline);
	for (const file of pipeline)
		for (const { from, values } of importsOf(file))
			if (values.some((name) => called.get(from)?.has(name))) named.add(from);
	return [...named].filter((file) => !LEAVES.includes(file)).sort();
}

/** The files the walk of a delivery lists (the list after "calls by name", up to a blank line). */
function documentedWalk(): string[] {
	const text = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
	const section = text.split('## One delivery through the webhook trigger')[1].split('\n## ')[0];
	const list = section.split('calls by name, from `webhook()`')[1].split('\n\n')[1];
	return [...list.matchAll(/`([^`]+\.ts)`/g)].map((match) => match[1]).sort();
}

describe('the walk of one delivery', () => {
	let setup: Setup | undefined;
	let session: Session | undefined;

	const tickMs = RECOVERY_TIMING.tickMs;
	afterEach(async () => {
		RECOVERY_TIMING.tickMs = tickMs;
		await setup?.close();
		setup = undefined;
		await session?.post('Profiler.stopPreciseCoverage').catch(() => undefined);
		session?.disconnect();
	});

	/** The functions an update's delivery calls, from its POST to its finished execution. */
	async function updateDelivered(parameters: INodeParameters): Promise<Called> {
		// the check for missed events off, and the subscriptions' check kept asleep: their waits wake
		// each tick (recovery/timing.ts), delivery or not
		setup = await setUp({ events: ALL_TOPICS, recoverMissedEvents: false, ...parameters });
		RECOVERY_TIMING.tickMs = 10 * 60_000;
		await setup.host.activate();
		// a first delivery: the token, the schema and lazy modules are in place, as in a running n8n
		const first = setup.sim.control.portalCreateLead({ firstName: 'First', lastName: 'Lead' });
		await setup.sim.control.waitForDeliveries(20_000);
		await setup.host.settle();
		session = new Session();
		session.connect();
		await session.post('Profiler.enable');
		await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		await functionsCalled(session);

		setup.sim.control.portalUpdateLead(first.id, { value: 4321, status: 'won' });
		await setup.sim.control.waitForDeliveries(20_000);
		await setup.host.settle();
		const called = await functionsCalled(session);
		expect(setup.host.executions).toHaveLength(2);
		return called;
	}

	it.each([
		['a plain delivery', {}],
		['with Fields to Watch', { watchedFields: ['status'] }],
	])('%s walks the files docs/ARCHITECTURE.md lists, at most 12', async (_name, parameters) => {
		const walk = walkOf(await updateDelivered(parameters));
		expect(walk).toEqual(documentedWalk());
		expect(walk.length).toBeLessThanOrEqual(12);
	});

	it('the stages enter state/ through one door each: the records, or the sealed secrets to verify', () => {
		const stages = [
			`${TRIGGER}webhook.ts`,
			...['delivery', 'runs'].flatMap((folder) =>
				readdirSync(join(ROOT, TRIGGER, folder)).map((name) => `${TRIGGER}${folder}/${name}`),
			),
		];
		const doors = new Map<string, string[]>();
		for (const stage of stages) {
			const state = importsOf(stage)
				.map(({ from }) => from)
				.filter((from) => from.startsWith(`${TRIGGER}state/`));
			if (state.length > 0) doors.set(stage, state);
		}
		for (const [stage, door] of doors)
			expect([stage, door]).toEqual([
				stage,
				[`${TRIGGER}state/${stage.endsWith('verify.ts') ? 'sealedSubscriptions' : 'records'}.ts`],
			]);
		expect([...doors.keys()].map((stage) => stage.slice(TRIGGER.length)).sort()).toEqual([
			'delivery/classify.ts',
			'delivery/verify.ts',
			'runs/executor.ts',
			'runs/prepare.ts',
			'runs/queue.ts',
		]);
	});
});
