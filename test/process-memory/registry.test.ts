/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: reads the package's sources in Node, never shipped */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { processCacheSizes, processMemorySizes } from '../../nodes/shared/state/processMemory';

/**
 * Every map the package keeps at module level (process memory) is listed in
 * nodes/shared/state/processMemory.ts: per trigger node (forgotten at deactivation) or per
 * process (bounded). A new one that is not registered fails here.
 */

const NODES = join(__dirname, '..', '..', 'nodes');

function sources(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sources(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

/** An empty `new Map<…>()`, `new WeakMap<…>()` or `new Set<…>()` at the top of a module (tables built from constants are not memory). */
const MODULE_MAP = /^const (\w+) = new (?:Map|WeakMap|Set|WeakSet)<.*>\(\);\n(.{0,40})/gm;
/** a registration that names the variable (its size, or its forget), or follows it at once */
const REGISTERED = (name: string) =>
	new RegExp(`register(?:NodeMemory|ProcessCache)\\([^;]*\\b${name}\\b`, 's');
const REGISTRATION_NEXT = /^register(?:NodeMemory|ProcessCache)\(/;

describe('process memory registry', () => {
	it('lists every module-level map in nodes/, per trigger node or per process', () => {
		const unlisted: string[] = [];
		let found = 0;
		for (const path of sources(NODES)) {
			if (path.endsWith('processMemory.ts')) continue; // the registry itself
			const text = readFileSync(path, 'utf8');
			for (const [, name, next] of text.matchAll(MODULE_MAP)) {
				found++;
				if (!REGISTERED(name).test(text) && !REGISTRATION_NEXT.test(next))
					unlisted.push(`${relative(NODES, path)}: ${name}`);
			}
		}
		expect(unlisted).toEqual([]);
		// token cache, schema copies, credential problems, decrypted credentials, refused
		// executions, poll contexts, handovers, deliveries in progress, secret boxes
		expect(found).toBe(9);
	});

	it('holds the stores of the state layer and the process caches once the nodes are loaded', () => {
		expect([PartnerLeads, PartnerLeadsTrigger, PartnerLeadsPollingTrigger]).toHaveLength(3);
		expect(Object.keys(processMemorySizes()).sort()).toEqual(
			[
				'deliveriesInProgress',
				'recentEvents',
				'recoveryFollowUps',
				'recoveryLedgers',
				'runExecutors',
				'runsInFlight',
				'secretBoxes',
				'testEventHandovers',
				'watchedLeads',
			].sort(),
		);
		expect(Object.keys(processCacheSizes()).sort()).toEqual(
			[
				'accessTokens',
				'credentialProblems',
				'decryptedCredentials',
				'editorSchemaCopies',
				'pollContexts',
				'refusedDespiteFreshToken',
			].sort(),
		);
	});
});
