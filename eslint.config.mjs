// n8n's own lint configuration for community nodes (as `n8n-node lint` uses it), applied to
// everything that ships. Tests, the simulator and scripts never run inside n8n, so the rules
// that exist for n8n Cloud's sandbox (no timers, no process, no imports) do not apply there.
import { config } from '@n8n/node-cli/eslint';

export default [
	...config,
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'jest.config.js', 'gulpfile.js'] },
	{
		files: ['test/**/*.ts', 'scripts/**/*.ts', '**/*.test.ts'],
		rules: {
			'@n8n/community-nodes/no-restricted-globals': 'off',
			'@n8n/community-nodes/no-restricted-imports': 'off',
			'@n8n/community-nodes/no-hardcoded-secrets': 'off',
			'@n8n/community-nodes/no-dead-files': 'off',
			'@n8n/community-nodes/missing-paired-item': 'off',
			'@n8n/community-nodes/require-node-api-error': 'off',
			'@n8n/community-nodes/node-usable-as-tool': 'off',
			// the harness loads the package's nodes lazily, like n8n's own loader
			'@typescript-eslint/no-require-imports': 'off',
			'import-x/no-named-as-default-member': 'off',
			'no-console': 'off',
		},
	},
];
