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

const common: Config = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }] },
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/e2e/'],
	setupFiles: ['<rootDir>/test/harness/env.js'],
};

const config: Config = {
	globalSetup: '<rootDir>/test/harness/global-setup.js',
	testTimeout: 30000,
	maxWorkers: 2,
	projects: [
		{ ...common, displayName: 'service: default', testMatch: ['<rootDir>/test/**/*.test.ts'] },
		...PERSONALITIES.filter((personality) => personality.name !== 'default').map((personality) => ({
			...common,
			displayName: `service: ${personality.name}`,
			testMatch: MATRIX_SUITES,
			// read by startSimulator when a test does not choose a personality itself
			globals: { PARTNER_SIM_PERSONALITY: personality.name },
			setupFiles: [...(common.setupFiles ?? []), '<rootDir>/test/harness/personality-env.js'],
		})),
	],
};

export default config;
