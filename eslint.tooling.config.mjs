// The lint of the code that never ships (tests, the simulator, scripts, benchmarks), run by
// `npm run lint` after `eslint .` (n8n's default configuration, eslint.config.mjs, which must
// stay byte for byte as n8n's template has it for `n8n-node lint` and n8n Cloud eligibility).
// n8n's rules already cover these files; here are the rules that keep the test suite honest.
import { config } from '@n8n/node-cli/eslint';

// TypeScript's parser and the plugins as n8n's configuration brings them (typescript-eslint and
// n8n's plugins are not direct dependencies); the plugins only so the files' eslint-disable
// comments, which name n8n's rules for `eslint .`, refer to rules that exist here
const { parser } = config.find((entry) => entry.languageOptions?.parser).languageOptions;
const plugins = Object.assign({}, ...config.map((entry) => entry.plugins ?? {}));

const focusedTest = (name) => ({
	selector: `CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name="${name}"]`,
	message: `A ".${name}" test would make CI run a part of the suite and pass. Remove ".${name}".`,
});

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
	{
		files: ['test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
		languageOptions: { parser },
		plugins,
		linterOptions: { reportUnusedDisableDirectives: 'off' },
		rules: {
			'no-restricted-syntax': [
				'error',
				focusedTest('only'),
				{
					selector: 'CallExpression[callee.name=/^(fit|fdescribe)$/]',
					message:
						'A focused test would make CI run a part of the suite and pass. Use "it" or "describe".',
				},
				{
					selector:
						'CallExpression[callee.property.name="listen"][arguments.0.type="Literal"][arguments.0.value!=0]',
					message:
						'A fixed port collides with other test runs on the same machine. Listen on port 0 and read the port the system chose.',
				},
			],
		},
	},
];
