/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Standalone simulator: `npm run simulator -- --port 4010 --allow-insecure-loopback-webhooks`.
 * Prints ready-to-paste n8n credential values and the control URL; stops on SIGINT/SIGTERM.
 */
import { PERSONALITIES, PERSONALITY_ENV_VAR, resolvePersonality } from './personality';
import { startSimulator } from './server';
import type { SimulatorOptions } from './types';

const HELP = `Partner Referral Service simulator (loopback only)

Options:
  --port <n>                          port (default 4010; 0 = any free port)
  --host <addr>                       loopback address (default 127.0.0.1)
  --token-lifetime <seconds>          access token lifetime (default 3600)
  --allow-insecure-loopback-webhooks  accept http:// receiver URLs on 127.0.0.1/localhost/[::1]
  --company-id <24 hex>               portal identifier (default generated)
  --client-id <id> --client-secret <secret>   fixed credentials for the default key
  --not-self-serve                    the default key is not self-serve
  --seed <n>                          seed for ids and fault dice
  --seed-leads <n>                    insert n leads at start
  --rate-limit <requests/second>      per-key rate limit (default off)
  --clock-offset <ms>                 the service's clock against this machine's (negative: behind);
                                      it stamps createdAt/updatedAt and event timestamps with it
  --delivery-max-attempts <n>         webhook attempts per delivery (default 6)
  --delivery-retry-delays <ms,...>    delay before each retry (overrides attempts and base delay); none = no retries
  --delivery-base-delay <ms>          first retry delay, doubled each time (default 1000)
  --delivery-timeout <ms>             receiver timeout (default 10000)
  --delivery-concurrency <n|all>      deliveries sent at once (default: the personality's, 8)
  --personality <name>                how the service answers where the spec says "not shown"
                                      (default: $${PERSONALITY_ENV_VAR} when set, else "default")
  --list-page-cap <n>                 GET /leads answers at most n leads a page, whatever the personality says
                                      (the personality is named <name>+cap-<n>)
  --list-personalities                print the personalities and what each does differently
  --json                              print the addresses, credentials and personality as one JSON line
  --help
`;

const FLAGS = new Set([
	'--allow-insecure-loopback-webhooks',
	'--not-self-serve',
	'--json',
	'--help',
	'--list-personalities',
]);

function parseArgs(argv: string[]): Map<string, string> {
	const args = new Map<string, string>();
	for (let i = 0; i < argv.length; i++) {
		const [name, inline] = argv[i].split(/=(.*)/s, 2);
		if (!name.startsWith('--')) throw new Error(`Unexpected argument "${argv[i]}"`);
		if (FLAGS.has(name)) {
			args.set(name, 'true');
			continue;
		}
		const value = inline ?? argv[++i];
		if (value === undefined) throw new Error(`${name} needs a value`);
		args.set(name, value);
	}
	return args;
}

function number(args: Map<string, string>, name: string): number | undefined {
	const raw = args.get(name);
	if (raw === undefined) return undefined;
	const value = Number(raw);
	if (!Number.isFinite(value)) throw new Error(`${name} must be a number (got "${raw}")`);
	return value;
}

function optionsFrom(args: Map<string, string>): SimulatorOptions {
	const clientId = args.get('--client-id');
	const clientSecret = args.get('--client-secret');
	if ((clientId === undefined) !== (clientSecret === undefined)) {
		throw new Error('--client-id and --client-secret go together');
	}
	return {
		port: number(args, '--port') ?? 4010,
		host: args.get('--host'),
		tokenLifetimeSeconds: number(args, '--token-lifetime'),
		allowInsecureLoopbackWebhooks: args.has('--allow-insecure-loopback-webhooks'),
		companyId: args.get('--company-id'),
		defaultKeyCredentials: clientId && clientSecret ? { clientId, clientSecret } : undefined,
		defaultKeySelfServe: !args.has('--not-self-serve'),
		personality: personalityFrom(args),
		seed: number(args, '--seed'),
		rateLimitPerSecond: number(args, '--rate-limit'),
		clockOffsetMs: number(args, '--clock-offset'),
		delivery: {
			maxAttempts: number(args, '--delivery-max-attempts'),
			baseDelayMs: number(args, '--delivery-base-delay'),
			timeoutMs: number(args, '--delivery-timeout'),
			retryDelaysMs: retryDelays(args.get('--delivery-retry-delays')),
			concurrency:
				args.get('--delivery-concurrency') === 'all'
					? Infinity
					: number(args, '--delivery-concurrency'),
		},
	};
}

/** The personality named by --personality (or the environment), with --list-page-cap over it. */
function personalityFrom(args: Map<string, string>): SimulatorOptions['personality'] {
	const name = args.get('--personality');
	const cap = number(args, '--list-page-cap');
	if (cap === undefined) return name;
	const base = resolvePersonality(name);
	return { ...base, name: `${base.name}+cap-${cap}`, listPageCap: cap };
}

/** `--delivery-retry-delays 1000,5000` (ms before each retry); `none` for no retries at all. */
function retryDelays(value: string | undefined): number[] | undefined {
	if (value === undefined) return undefined;
	if (value === 'none' || value === '') return [];
	return value.split(',').map((part) => {
		const delay = Number(part);
		if (!Number.isFinite(delay) || delay < 0)
			throw new Error(
				`--delivery-retry-delays takes delays in ms, e.g. 1000,5000, or none (got "${value}")`,
			);
		return delay;
	});
}

/** Drops undefined values so the simulator's defaults apply. */
function defined<T extends object>(value: T): T {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	if (args.has('--help')) {
		process.stdout.write(HELP);
		return;
	}
	if (args.has('--list-personalities')) {
		process.stdout.write(PERSONALITIES.map((p) => `${p.name}\n  ${p.description}\n`).join(''));
		return;
	}
	const options = optionsFrom(args);
	options.delivery = defined(options.delivery ?? {});
	const sim = await startSimulator(defined(options));
	const seedLeads = number(args, '--seed-leads');
	if (seedLeads) sim.control.seedLeads(seedLeads);

	const values = {
		environment: 'production',
		url: sim.url,
		devUrl: sim.devUrl,
		authUrl: sim.authUrl,
		companyId: sim.companyId,
		clientId: sim.defaultKey.clientId,
		clientSecret: sim.defaultKey.clientSecret,
		controlUrl: sim.controlUrl,
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentIds: sim.defaultAgents.map((agent) => agent.id),
		personality: sim.personality.name,
	};
	if (args.has('--json')) {
		process.stdout.write(JSON.stringify(values) + '\n');
	} else {
		const https = options.allowInsecureLoopbackWebhooks
			? 'http:// receiver URLs on loopback are accepted (--allow-insecure-loopback-webhooks)'
			: 'receiver URLs must be HTTPS (start with --allow-insecure-loopback-webhooks for http://127.0.0.1)';
		process.stdout.write(
			[
				`Partner Referral Service simulator listening on ${sim.origin}`,
				'',
				'n8n credential values:',
				`  Environment                      ${values.environment}`,
				`  Production API base address      ${values.url}`,
				`  Non-production API base address  ${values.devUrl}`,
				`  Token issuer address             ${values.authUrl}`,
				`  Company ID                       ${values.companyId}`,
				`  Client ID                        ${values.clientId}`,
				`  Client Secret                    ${values.clientSecret}`,
				'',
				`Self-serve key: ${sim.defaultKey.selfServe ? 'yes' : 'no'}; partner organization ${values.partnerOrganizationId}, agents ${values.agentIds.join(', ')}`,
				`Webhooks: ${https}`,
				`Personality: ${sim.personality.name} (${sim.personality.description})`,
				`Control API (not part of the service): ${sim.controlUrl}`,
				'Press Ctrl+C to stop.',
				'',
			].join('\n'),
		);
	}

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		if (!args.has('--json')) process.stdout.write(`\n${signal}: stopping the simulator\n`);
		void sim.close().then(() => process.exit(0));
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	process.stderr.write(`simulator: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
