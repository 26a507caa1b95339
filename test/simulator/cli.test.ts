/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { spawn } from 'node:child_process';
import path from 'node:path';

import { PERSONALITIES } from './personality';
import { requestToken, send } from './test-helpers';

/** What the CLI's --json line holds (the parts these tests read). */
interface CliValues {
	personality: string;
	url: string;
	authUrl: string;
	companyId: string;
	clientId: string;
	clientSecret: string;
}

/** `npm run simulator` (cli.ts): the personality flags. Runs the CLI as a child process, bounded in time. */

const CLI = path.join(__dirname, 'cli.ts');

/**
 * Starts the CLI; `firstLine` resolves with the first line it prints (or with all it printed,
 * when it exits first); `stop` ends it and resolves with its exit code.
 */
function startCli(args: string[], timeoutMs = 30_000) {
	// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- a test starting our own CLI, never shipped
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', CLI, ...args], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	// 'close', not 'exit': by then stdout and stderr are fully read.
	const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
	let out = '';
	let err = '';
	child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
	const firstLine = new Promise<{ out: string; err: string }>((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(
				new Error(`cli ${args.join(' ')} printed nothing within ${timeoutMs} ms: ${out}${err}`),
			);
		}, timeoutMs);
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString('utf8');
			if (
				out.includes('\n') &&
				!args.includes('--list-personalities') &&
				!args.includes('--help')
			) {
				clearTimeout(timer);
				resolve({ out: out.split('\n')[0], err });
			}
		});
		void exited.then(() => {
			clearTimeout(timer);
			resolve({ out, err });
		});
	});
	const stop = () => {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
		return exited;
	};
	return { firstLine, stop };
}

it('--list-personalities prints every preset with its description; --help mentions the flags', async () => {
	const { out } = await startCli(['--list-personalities']).firstLine;
	for (const personality of PERSONALITIES)
		expect(out).toContain(`${personality.name}\n  ${personality.description}\n`);
	const help = (await startCli(['--help']).firstLine).out;
	expect(help).toContain('--personality <name>');
	expect(help).toContain('--list-personalities');
});

it('--personality selects how the service answers and --json names it; an unknown name fails with the known ones', async () => {
	const cli = startCli(['--port', '0', '--json', '--personality', 'capped-7-bare-403-text']);
	try {
		const values = JSON.parse((await cli.firstLine).out) as CliValues;
		expect(values.personality).toBe('capped-7-bare-403-text');
		const unauthenticated = await send(`${values.url}/1.0/api/company/${values.companyId}/leads`);
		expect([unauthenticated.status, unauthenticated.headers.get('content-type')]).toEqual([
			403,
			'text/plain; charset=utf-8',
		]);
	} finally {
		expect(await cli.stop()).toBe(0);
	}
	const failed = startCli(['--port', '0', '--personality', 'nope']);
	expect((await failed.firstLine).err).toMatch(
		/Unknown simulator personality "nope": use one of default, capped-7-bare-403-text/,
	);
	expect(await failed.stop()).toBe(1);
});

it('--list-page-cap caps the pages of GET /leads over the personality, and --json names it; a cap below 1 fails', async () => {
	const cli = startCli(['--port', '0', '--json', '--seed-leads', '20', '--list-page-cap', '7']);
	try {
		const values = JSON.parse((await cli.firstLine).out) as CliValues;
		expect(values.personality).toBe('default+cap-7');
		const token = await requestToken(values);
		const page = await send(`${values.url}/1.0/api/company/${values.companyId}/leads?limit=100`, {
			headers: { authorization: `Bearer ${(token.body as { access_token: string }).access_token}` },
		});
		expect((page.body as { data: unknown[] }).data).toHaveLength(7);
	} finally {
		expect(await cli.stop()).toBe(0);
	}
	const failed = startCli(['--port', '0', '--list-page-cap', '0']);
	expect((await failed.firstLine).err).toMatch(/listPageCap must be null or a positive integer/);
	expect(await failed.stop()).toBe(1);
});
