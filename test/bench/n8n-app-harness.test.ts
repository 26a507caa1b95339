/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The pieces of `npm run bench:n8n` that can break without n8n running: the verdict over
 * runs (a target met in some runs and missed in others is "within noise"), the CPU profile
 * summary, and the floor package n8n loads (its nodes must load and describe themselves).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { summariseCpuProfile } from '../../bench/n8n-app/cpu-profile-summary';
import { atLeast, atMost, near, spreadOf, verdictOf } from '../../bench/n8n-app/figures';
import {
	FLOOR_CREATE_TYPE,
	FLOOR_TRIGGER_TYPE,
	writeFloorPackage,
} from '../../bench/n8n-app/floor-package';

describe('figures over runs', () => {
	it('gives min, median and max, the median of an even count halfway', () => {
		expect(spreadOf([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
		expect(spreadOf([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
	});

	it('calls a target met or missed only when every run agrees', () => {
		expect(verdictOf([0.4, 0.45], atMost(0.5))).toBe('met');
		expect(verdictOf([0.6, 0.7], atMost(0.5))).toBe('missed');
		expect(verdictOf([0.4, 0.6], atMost(0.5))).toBe('within noise');
		expect(verdictOf([6.5, 5.5, 7], atLeast(6))).toBe('within noise');
		expect(verdictOf([4.6, 5.4], near(5, 1))).toBe('met');
		expect(verdictOf([1, 2])).toBe('no target');
	});
});

describe('CPU profile summary', () => {
	it('adds self time per function and per area, leaving idle time out of the shares', () => {
		const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
		const profile = {
			startTime: 0,
			endTime: 10_000,
			nodes: [
				{ id: 1, callFrame: frame('(root)', '') },
				{ id: 2, callFrame: frame('(idle)', '') },
				{
					id: 3,
					callFrame: frame(
						'apiRequest',
						'file:///x/node_modules/n8n-nodes-partner-leads/dist/nodes/shared/transport/request.js',
					),
				},
				{ id: 4, callFrame: frame('execute', 'file:///x/node_modules/n8n-core/dist/a.js') },
			],
			samples: [2, 3, 3, 4, 2, 2],
			timeDeltas: [1000, 1000, 1000, 2000, 1000, 1000],
		};
		const summary = summariseCpuProfile(profile, 5);
		expect(summary.totalMs).toBe(4);
		expect(summary.byArea).toEqual([
			{ name: 'our package (dist)', selfMs: 2, share: 0.5 },
			{ name: 'n8n-core', selfMs: 2, share: 0.5 },
		]);
		expect(summary.top[0].name).toMatch(
			/^apiRequest n8n-nodes-partner-leads\/dist\/.*request\.js:1$/,
		);
	});
});

describe('floor package', () => {
	it('writes nodes that load and name the types the workflows use', () => {
		const folder = mkdtempSync(path.join(os.tmpdir(), 'bench-floor-'));
		try {
			const dir = writeFloorPackage(folder);
			const manifest = require(path.join(dir, 'package.json')) as {
				name: string;
				n8n: { nodes: string[] };
			};
			const names = manifest.n8n.nodes.map((file) => {
				const exported = require(path.join(dir, file)) as Record<
					string,
					new () => { description: { name: string } }
				>;
				const [NodeClass] = Object.values(exported);
				return `${manifest.name}.${new NodeClass().description.name}`;
			});
			expect(names).toEqual([FLOOR_CREATE_TYPE, FLOOR_TRIGGER_TYPE]);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});
});
