import { spawn } from 'node:child_process';
import path from 'node:path';

import { PERSONALITIES } from './personality';
import { send } from './test-helpers';

/** `npm run simulator` (cli.ts): personality flags. Runs the CLI as a child process, bounded in time. */

const CLI = path.join(__dirname, 'cli.ts');

/** Runs the CLI until it prints a first complete output (or exits), then stops it. */
function runCli(args: string[], untilLine: boolean, timeoutMs = 30_000): Promise<{ out: string; err: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', CLI, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`cli ${args.join(' ')} printed nothing usable within ${timeoutMs} ms: ${out}${err}`));
		}, timeoutMs);
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString('utf8');
			if (untilLine && out.includes('\n')) {
				clearTimeout(timer);
				child.kill('SIGTERM');
			}
		});
		child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
		child.once('exit', () => {
			clearTimeout(timer);
			resolve({ out, err });
		});
	});
}

it('--list-personalities prints every preset with its description; --help mentions the flags', async () => {
	const { out } = await runCli(['--list-personalities'], false);
	for (const personality of PERSONALITIES) expect(out).toContain(`${personality.name}\n  ${personality.description}\n`);
	const help = (await runCli(['--help'], false)).out;
	expect(help).toContain('--personality <name>');
	expect(help).toContain('--list-personalities');
});

it('--personality selects the service and --json names it; an unknown name fails with the known ones', async () => {
	const { out } = await runCli(['--port', '0', '--json', '--personality', 'capped-7-bare-403-text'], true);
	const values = JSON.parse(out.split('\n')[0]) as { personality: string; url: string };
	expect(values.personality).toBe('capped-7-bare-403-text');
	const failed = await runCli(['--port', '0', '--personality', 'nope'], false);
	expect(failed.err).toMatch(/Unknown simulator personality "nope": use one of default, capped-7-bare-403-text/);
	// The simulator is stopped with the CLI (nothing left listening).
	await expect(send(`${values.url}/1.0/api/company/x/leads`)).rejects.toThrow();
});
