import type { Config } from 'jest';

import { PERSONALITIES } from './test/simulator/personality';

/**
 * Every suite runs once against the simulator's default service. The suites of the nodes, the
 * credential and the transport run again against every other personality of the service (each
 * plausible answer to what the spec leaves "not shown"): a behaviour that holds only for the
 * default is a bug. `npx jest --selectProjects 'service: capped-7-bare-403-text'` runs one.
 */
const MATRIX_SUITES = [
	'<rootDir>/test/nodes/**/*.test.ts',
	'<rootDir>/test/transport/**/*.test.ts',
];

/**
 * Suites among those that start no simulator (the nodes' own state and decisions): every
 * personality would run them the same way, so they run once. test/source/personality-matrix.test.ts
 * checks that none of them starts one.
 */
export const SERVICE_FREE_SUITES = [
	'test/nodes/partner-leads-polling-trigger/poll-state.test.ts',
	'test/nodes/partner-leads-polling-trigger/sweep-order.test.ts',
	'test/nodes/partner-leads-trigger/deduplication.test.ts',
	'test/nodes/partner-leads-trigger/recovery-ledger.test.ts',
	'test/nodes/partner-leads-trigger/subtitle.test.ts',
	'test/nodes/partner-leads/adaptive-limiter.test.ts',
	'test/nodes/partner-leads/subtitle.test.ts',
	'test/transport/retry-decision.test.ts',
	'test/transport/token-cache.test.ts',
];

const common: Config = {
	// jest's node environment, failing a suite that leaves a server, socket or timer open
	testEnvironment: '<rootDir>/test/harness/open-handles-env.js',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }] },
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/e2e/'],
	setupFiles: ['<rootDir>/test/harness/env.js'],
};

const config: Config = {
	globalSetup: '<rootDir>/test/harness/global-setup.js',
	testTimeout: 30000,
	maxWorkers: 2,
	// Each suite loads n8n-core anew in its own module registry and a worker keeps ~25 MB of
	// every suite it ran (measured with --logHeapUsage and --expose-gc): by the end of a run a
	// worker holds ~2 GB, and tearing that down can outlast the 500 ms jest gives a worker to
	// exit. A worker past this after a suite is replaced by a fresh one.
	workerIdleMemoryLimit: '768MB',
	projects: [
		{ ...common, displayName: 'service: default', testMatch: ['<rootDir>/test/**/*.test.ts'] },
		...PERSONALITIES.filter((personality) => personality.name !== 'default').map((personality) => ({
			...common,
			displayName: `service: ${personality.name}`,
			testMatch: MATRIX_SUITES,
			testPathIgnorePatterns: [
				...(common.testPathIgnorePatterns ?? []),
				...SERVICE_FREE_SUITES.map((suite) => `<rootDir>/${suite}`),
			],
			// read by startSimulator when a test does not choose a personality itself
			globals: { PARTNER_SIM_PERSONALITY: personality.name },
			setupFiles: [...(common.setupFiles ?? []), '<rootDir>/test/harness/personality-env.js'],
		})),
	],
};

export default config;
