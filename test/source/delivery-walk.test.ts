/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: reads the package's sources in Node, never shipped */
import { Session } from 'node:inspector/promises';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Setup } from '../nodes/partner-leads-trigger/helpers';
import { ALL_TOPICS, setUp } from '../nodes/partner-leads-trigger/helpers';
import { RECOVERY_TIMING } from '../../nodes/PartnerLeadsTrigger/recovery/timing';

/**
 * The shipped files one delivery runs code in, from `webhook()` to its finished execution, taken
 * from V8's own call counts while n8n-core serves it: the walk in docs/ARCHITECTURE.md names
 * exactly these, so the map a newcomer reads is the road the code takes.
 */

const ROOT = join(__dirname, '..', '..');

interface FunctionCoverage {
	ranges: Array<{ count: number }>;
}

/** Shipped files with a function called since the last take (call counts reset on each take). */
async function filesCalled(session: Session): Promise<Set<string>> {
	const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as {
		result: Array<{ url: string; functions: FunctionCoverage[] }>;
	};
	const files = new Set<string>();
	for (const script of result) {
		const path = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
		const file = relative(ROOT, path);
		if (!/^(nodes|credentials)\/.*\.ts$/.test(file)) continue;
		if (script.functions.some((fn) => fn.ranges[0].count > 0)) files.add(file);
	}
	return files;
}

/** The files the walk of a delivery lists (the list after "runs code in", up to a blank line). */
function documentedWalk(): string[] {
	const text = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
	const section = text.split('## One delivery through the webhook trigger')[1].split('\n## ')[0];
	const list = section.split('runs code in, from `webhook()`')[1].split('\n\n')[1];
	return [...list.matchAll(/`([^`]+\.ts)`/g)].map((match) => match[1]);
}

describe('the walk of one delivery', () => {
	let setup: Setup | undefined;
	const session = new Session();

	const tickMs = RECOVERY_TIMING.tickMs;
	afterEach(async () => {
		RECOVERY_TIMING.tickMs = tickMs;
		await setup?.close();
		await session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
		session.disconnect();
	});

	it('runs code in exactly the files its walk in docs/ARCHITECTURE.md lists', async () => {
		// the check for missed events off, and the subscriptions' check kept asleep: their waits wake
		// each tick (recovery/timing.ts), delivery or not
		setup = await setUp({ events: ALL_TOPICS, recoverMissedEvents: false });
		RECOVERY_TIMING.tickMs = 10 * 60_000;
		await setup.host.activate();
		// a first delivery: the token, the schema and lazy modules are in place, as in a running n8n
		const first = setup.sim.control.portalCreateLead({ firstName: 'First', lastName: 'Lead' });
		await setup.sim.control.waitForDeliveries(20_000);
		await setup.host.settle();
		session.connect();
		await session.post('Profiler.enable');
		await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		await filesCalled(session);

		setup.sim.control.portalUpdateLead(first.id, { value: 4321 });
		await setup.sim.control.waitForDeliveries(20_000);
		await setup.host.settle();
		const walked = [...(await filesCalled(session))].sort();

		expect(setup.host.executions).toHaveLength(2);
		const documented = documentedWalk();
		expect(documented).toHaveLength(new Set(documented).size);
		expect(walked).toEqual(documented.sort());
	});
});
