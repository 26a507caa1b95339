/* eslint-disable @n8n/community-nodes/no-restricted-globals -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npm run demo`: runs the demo and prints its account. Exit code 0 when it ran through,
 * 1 when something failed (the message says what).
 */
import './n8n-env';

async function main(): Promise<void> {
	// Loaded after n8n-env, so n8n-core starts with the demo's settings folder.
	const { runDemo } = await import('./demo');
	const { formatAccount } = await import('./print');
	process.stdout.write(formatAccount(await runDemo()));
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(
			`demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exit(1);
	},
);
