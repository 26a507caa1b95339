/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: reads the package's sources in Node, never shipped */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SERVICE_FREE_SUITES } from '../../jest.config';

/**
 * The suites that run once instead of against every personality of the service must not talk to
 * it: none starts the simulator, directly or through the harnesses that do.
 */
const STARTS_A_SERVICE =
	/startSimulator|new N8nHarness|Host\.start|\bsetUp[A-Za-z]*\(|from '\.\.?\/(helpers|recovery-helpers)'/;

describe('the suites left out of the personality matrix', () => {
	it.each(SERVICE_FREE_SUITES)('%s starts no simulator', (suite) => {
		const path = join(__dirname, '..', '..', suite);
		expect(existsSync(path)).toBe(true);
		expect(readFileSync(path, 'utf8')).not.toMatch(STARTS_A_SERVICE);
	});

	it('the check would see a suite that starts one', () => {
		const deliveries = readFileSync(
			join(__dirname, '..', 'nodes', 'partner-leads-trigger', 'deliveries.test.ts'),
			'utf8',
		);
		expect(deliveries).toMatch(STARTS_A_SERVICE);
	});
});
