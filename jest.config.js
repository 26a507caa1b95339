/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }] },
	testMatch: ['<rootDir>/test/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/e2e/'],
	globalSetup: '<rootDir>/test/harness/global-setup.js',
	setupFiles: ['<rootDir>/test/harness/env.js'],
	testTimeout: 30000,
	maxWorkers: 2,
};
