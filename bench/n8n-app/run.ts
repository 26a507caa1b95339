/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npm run bench:n8n`: the package measured where users run it, the real n8n app, against
 * the simulator next door (plain HTTP on loopback) and 25 ms away each way (behind a TLS
 * latency proxy, so every new connection pays its handshake).
 *
 *   npm run bench:n8n                          # 2.41.1, 4 runs per case (about 12 minutes)
 *   npm run bench:n8n -- --quick               # small sizes, 2 runs: checks the bench (about 3 minutes)
 *   npm run bench:n8n -- --version both        # 2.41.1 and 1.123.81 (or --version 1.123.81)
 *   npm run bench:n8n -- --runs 7
 *   npm run bench:n8n -- --only create,trigger  # some cases (create | rate-limited | trigger | trigger-state | get-many | polling)
 *   npm run bench:n8n -- --only trigger-state  # deliveries/s with the static data of an empty, a 10,000- and a 50,000-lead portal
 *   npm run bench:n8n -- --only polling        # one poll in n8n by portal size and page cap (about 20 minutes; --quick: 1,000 leads)
 *   npm run bench:n8n -- --only polling --polls 3  # measured polls per size and cap (default 2)
 *   npm run bench:n8n -- --only watched        # the trigger with 5 Fields to Watch at 10,000 leads, and without (about 10 minutes)
 *   npm run bench:n8n -- --only burst          # the trigger against n8n's Webhook node, and a 1,000-lead bulk import, at 0 and 50,000 leads
 *   npm run bench:n8n -- --only burst --history 0,3000,20000 --burst-leads 0  # also ours after 3,000 and 20,000 events (bytes written per delivery)
 *   npm run bench:n8n -- --version 2.41.1 --only rate-limited --runs 3
 *   npm run bench:n8n -- --profile create      # CPU profile of n8n during one case (create | get-many | trigger)
 *   npm run bench:n8n -- --profile burst --only burst --burst-sizes 0  # one profile per side's first round
 *
 * Times come from n8n's own execution data (the measured node's executionTime). Baselines run
 * in the same n8n, in alternating order with ours. See bench/README.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { buildPackage, REPO_ROOT } from '../../test/e2e/lib/build-package';
import { isRecord } from '../../test/e2e/lib/http';
import { executionError } from '../../test/e2e/lib/execution-data';
import { communityPackagesFolder, installPackageInto } from '../../test/e2e/lib/extension';
import { freeLoopbackPort, startN8n, type N8nInstance } from '../../test/e2e/lib/n8n-instance';
import { N8nRest, type ExecutionDetail } from '../../test/e2e/lib/n8n-rest';
import { provideRuntimes, type N8nRuntime } from '../../test/e2e/lib/provision';
import { runThroughWebhook } from '../../test/e2e/lib/run-workflow';
import { pollUntil, sleep } from '../../test/e2e/lib/wait';
import type { CredentialRef } from '../../test/e2e/workflows';
import { RemoteSimulator } from '../sim';
import { BareClient } from './bare-keepalive-client';
import { summariseCpuProfile, type ProfileSummary } from './cpu-profile-summary';
import { atLeast, atMost, formatSpread, near, spreadOf, verdictOf, type Target } from './figures';
import { writeFloorPackage } from './floor-package';
import { InspectorProfiler } from './inspector-profiler';
import { startLatencyProxy } from './latency-proxy';
import { pollingCase, POLL_SIZES, type PollingOptions } from './polling';
import { postSigned } from './signed-deliveries';
import { watchedCase } from './watched';
import { BURST_SIZES, burstCase } from './burst';
import { importCase } from './import-stream';
import { makeCertificates, type Certificates } from './self-signed-ca';
import { STATE_SIZES, triggerStateCase } from './trigger-state';
import {
	floorCreate,
	httpRequestCreate,
	MEASURED,
	oursCreate,
	oursGetMany,
	triggerOnly,
	type BenchWorkflow,
} from './workflows';
import { runMain } from '../processes';
import { MAX_PARALLEL_REQUESTS } from '../../nodes/PartnerLeads/actions/common/itemLoop';

type CaseName =
	| 'create'
	| 'get-many'
	| 'trigger'
	| 'trigger-state'
	| 'rate-limited'
	| 'polling'
	| 'watched'
	| 'burst'
	| 'import';

interface Options {
	versions: string[];
	runs: number;
	leads: number;
	deliveries: number;
	listSizes: [number, number];
	/** the polling case: portal sizes, and measured polls per size and page cap */
	polling: PollingOptions;
	/** the trigger-state case: portal sizes whose static data each delivery carries */
	stateSizes: number[];
	/** the burst case: portal sizes, the leads of the bulk import, the histories of ours */
	burst: { sizes: number[]; leads: number; histories: number[] };
	/** the import case: its minutes at 6 leads a second */
	importMinutes: number;
	profile?: CaseName;
	/** the cases to run; default all */
	only: CaseName[];
}

function parseOptions(argv: string[]): Options {
	const value = (flag: string) => {
		const index = argv.indexOf(flag);
		return index >= 0 ? argv[index + 1] : undefined;
	};
	const quick = argv.includes('--quick');
	const version = value('--version') ?? '2.41.1';
	const profile = value('--profile') as CaseName | undefined;
	const names = [
		'create',
		'rate-limited',
		'trigger',
		'trigger-state',
		'get-many',
		'polling',
		'watched',
		'burst',
		'import',
	];
	if (profile && !names.includes(profile))
		throw new Error('--profile takes create, rate-limited, get-many, trigger, polling or burst');
	// the watched, burst and import cases are asked for by name: they seed 10,000 and 50,000 leads
	const only = (value('--only')?.split(',') ??
		names.filter((name) => !['watched', 'burst', 'import'].includes(name))) as CaseName[];
	if (only.some((name) => !names.includes(name)))
		throw new Error(
			'--only takes create, rate-limited, trigger, trigger-state, get-many, polling, watched, burst and import, separated by commas',
		);
	return {
		versions: version === 'both' ? ['2.41.1', '1.123.81'] : [version],
		runs: Number(value('--runs') ?? (quick ? 2 : 4)),
		leads: quick ? 40 : 150,
		deliveries: quick ? 60 : 200,
		listSizes: quick ? [2_000, 10_000] : [10_000, 50_000],
		polling: {
			sizes: quick ? POLL_SIZES.slice(0, 1) : POLL_SIZES,
			polls: Number(value('--polls') ?? 2),
		},
		stateSizes: quick ? [0, 2_000] : STATE_SIZES,
		burst: {
			sizes: value('--burst-sizes')?.split(',').map(Number) ?? (quick ? [0] : BURST_SIZES),
			leads: Number(value('--burst-leads') ?? (quick ? 200 : 1_000)),
			histories: value('--history')?.split(',').map(Number) ?? [0],
		},
		importMinutes: Number(value('--import-minutes') ?? 8),
		profile,
		only,
	};
}

/** One figure of the report: a value per run, and what it is compared with. */
interface Row {
	version: string;
	figure: string;
	unit: string;
	values: number[];
	target?: Target;
}

const print = (line = '') => process.stdout.write(`${line}\n`);

const log = (message: string) =>
	print(`[bench:n8n ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** Where n8n reaches the service: the simulator itself on loopback, or the TLS latency proxy. */
interface Endpoint {
	url: string;
}

/** The service's addresses as seen through one endpoint. */
function proxied(proxy: Endpoint, address: string): string {
	const url = new URL(address);
	return `${proxy.url}${url.pathname}`.replace(/\/$/, '');
}

function credentialData(sim: RemoteSimulator, proxy: Endpoint): Record<string, unknown> {
	return {
		environment: 'production',
		baseUrl: proxied(proxy, sim.info.url),
		devBaseUrl: proxied(proxy, sim.info.devUrl),
		authUrl: proxied(proxy, sim.info.authUrl),
		companyId: sim.info.companyId,
		clientId: sim.info.clientId,
		clientSecret: sim.info.clientSecret,
		// The service knows itself by its own address, not the proxy's.
		audience: sim.info.url,
	};
}

function leadsUrl(sim: RemoteSimulator, proxy: Endpoint): string {
	return `${proxied(proxy, sim.info.url)}/1.0/api/company/${sim.info.companyId}/leads`;
}

function leadBodies(sim: RemoteSimulator, count: number): object[] {
	const batch = randomUUID().slice(0, 8);
	return Array.from({ length: count }, (_value, index) => ({
		firstName: `Ada${index}`,
		lastName: 'Bench',
		email: `ada${index}.${batch}@example.com`,
		partnerOrganizationId: sim.info.partnerOrganizationId,
		agentId: sim.info.agentIds[0],
	}));
}

/** A workflow created and activated in n8n, with how many executions it has had. */
interface Active {
	id: string;
	path: string;
	executions: number;
}

async function activate(
	rest: N8nRest,
	definition: { workflow: BenchWorkflow; path?: string },
): Promise<Active> {
	const created = await rest.createWorkflow(definition.workflow);
	await rest.activateWorkflow(created);
	return { id: created.id, path: definition.path ?? '', executions: 0 };
}

function measuredRun(execution: ExecutionDetail): { executionTime: number } {
	const resultData = isRecord(execution.data.resultData) ? execution.data.resultData : {};
	const runData = isRecord(resultData.runData) ? resultData.runData : {};
	const runs = runData[MEASURED];
	const first: unknown = Array.isArray(runs) ? runs[0] : undefined;
	if (!isRecord(first) || typeof first.executionTime !== 'number')
		throw new Error(`no run of "${MEASURED}" in execution ${execution.id}`);
	return { executionTime: first.executionTime };
}

const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/** Waits for the workflow's next execution to finish, however it ended (bounded). */
async function finishedExecution(rest: N8nRest, workflow: Active): Promise<ExecutionDetail> {
	workflow.executions += 1;
	const expected = workflow.executions;
	const summary = await pollUntil(
		async () => {
			if ((await rest.executionCount(workflow.id)) < expected) return undefined;
			const [newest] = await rest.listExecutions(workflow.id);
			return newest && DONE.has(newest.status) ? newest : undefined;
		},
		{ timeoutMs: 600_000, intervalMs: 200, what: `execution ${expected} of ${workflow.id}` },
	);
	return await rest.getExecution(summary.id);
}

/** Waits for the workflow's next execution to finish and returns it; it must have succeeded. */
async function nextExecution(rest: N8nRest, workflow: Active): Promise<ExecutionDetail> {
	const execution = await finishedExecution(rest, workflow);
	if (execution.status !== 'success')
		throw new Error(`execution ${execution.id} ${execution.status}: ${executionError(execution)}`);
	return execution;
}

/**
 * Runs a webhook-started workflow once, which may end in an error (the HTTP Request node
 * fails the run on a 429); returns the measured node's time in ms.
 */
async function runAllowingFailure(
	rest: N8nRest,
	workflow: Active,
	body: object,
): Promise<{ ms: number; status: string }> {
	await runThroughWebhook(rest, workflow.path, body).catch(() => undefined);
	const execution = await finishedExecution(rest, workflow);
	return { ms: measuredRun(execution).executionTime, status: execution.status };
}

/** Runs a webhook-started workflow once; returns the measured node's time in ms. */
async function runOnce(rest: N8nRest, workflow: Active, body: object): Promise<number> {
	await runThroughWebhook(rest, workflow.path, body);
	return measuredRun(await nextExecution(rest, workflow)).executionTime;
}

/** Peak RSS of a process above its RSS when sampling started, in MiB (sampled every 20 ms). */
function rssSampler(pid: number): { stop(): number } {
	const rss = () => {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
	};
	const baseline = rss();
	let peak = baseline;
	const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
	return {
		stop: () => {
			clearInterval(timer);
			return Math.max(0, Math.max(peak, rss()) - baseline);
		},
	};
}

/** The order of the variants in run `run`: rotated, so each goes first as often. */
function rotated<T>(variants: T[], run: number): T[] {
	const shift = run % variants.length;
	return [...variants.slice(shift), ...variants.slice(0, shift)];
}

interface Profile {
	version: string;
	case: CaseName;
	/** the stretch profiled, where a case profiles several */
	label?: string;
	summary: ProfileSummary;
}

interface Setting {
	n8n: N8nInstance;
	rest: N8nRest;
	sim: RemoteSimulator;
	proxies: Record<0 | 25, Endpoint>;
	certificates: Certificates;
	credentials: Record<0 | 25, CredentialRef>;
	options: Options;
	/** `--profile burst`: profiles one stretch of a case at a time (each side's round) */
	profiled?<T>(label: string, work: () => Promise<T>): Promise<T>;
}

async function createCase(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, sim, proxies, credentials, options, certificates } = setting;
	const version = setting.n8n.version;
	for (const distance of [0, 25] as const) {
		const url = leadsUrl(sim, proxies[distance]);
		// Both nodes with their default settings: what a new user gets.
		const variants = {
			ours: await activate(rest, oursCreate(credentials[distance])),
			'HTTP Request node': await activate(rest, httpRequestCreate(credentials[distance], url)),
			'minimal node': await activate(rest, floorCreate(credentials[distance], url)),
		};
		const bare = new BareClient({
			ca: certificates.ca,
			tokenUrl: `${proxied(proxies[distance], sim.info.authUrl)}/oauth/token`,
			leadsUrl: url,
			clientId: sim.info.clientId,
			clientSecret: sim.info.clientSecret,
			audience: sim.info.url,
		});
		// The distance's floor at the most our node sends at once.
		const floorInFlight = `bare, ${MAX_PARALLEL_REQUESTS} in flight`;
		type Name = keyof typeof variants | 'bare' | typeof floorInFlight;
		const names: Name[] = [...(Object.keys(variants) as Array<keyof typeof variants>), 'bare'];
		if (distance === 25) names.push(floorInFlight);
		const perLead: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
		const measure = async (name: Name, leads: object[]): Promise<number> => {
			if (name === 'bare') return await bare.createLeads(leads, 1);
			if (name === floorInFlight) return await bare.createLeads(leads, MAX_PARALLEL_REQUESTS);
			return (await runOnce(rest, variants[name], { leads })) / leads.length;
		};
		const where = `${options.leads} leads, ${distance === 0 ? 'loopback, plain HTTP' : '25 ms each way, TLS'}`;
		log(`${version}: Create, ${where}: warm-up`);
		for (const name of names) await measure(name, leadBodies(sim, 10));
		for (let run = 0; run < options.runs; run++) {
			for (const name of rotated(names, run))
				perLead[name].push(await measure(name, leadBodies(sim, options.leads)));
			log(
				`${version}: Create, ${distance} ms, run ${run + 1} (load ${os.loadavg()[0].toFixed(2)}): ${names.map((name) => `${name} ${perLead[name][run].toFixed(2)}`).join(', ')} ms/lead`,
			);
		}
		for (const name of names)
			rows.push({
				version,
				figure: `Create, ${name} (${where})`,
				unit: 'ms/lead',
				values: perLead[name],
			});
		const ratio = (a: string, b: string) => perLead[a].map((value, run) => value / perLead[b][run]);
		rows.push({
			version,
			figure: `Create, ours / HTTP Request node, both default (${where})`,
			unit: 'ratio',
			values: ratio('ours', 'HTTP Request node'),
			target: atMost(distance === 0 ? 0.5 : 0.8),
		});
		rows.push({
			version,
			figure: `Create, ours / minimal node (${where})`,
			unit: 'ratio',
			values: ratio('ours', 'minimal node'),
			target: distance === 0 ? atMost(1.1) : undefined,
		});
		if (distance === 25)
			rows.push({
				version,
				figure: `Create, ours / ${floorInFlight} (${where})`,
				unit: 'ratio',
				values: ratio('ours', floorInFlight),
			});
		for (const workflow of Object.values(variants))
			await rest.deactivateWorkflow({ id: workflow.id, active: true });
	}
}

/** The rate the rate-limited case's service allows, per API key. */
const ALLOWED_RATE = 20;

/**
 * Both nodes with their defaults against a service that allows 20 requests a second (a token
 * bucket of 20 per API key, 429 with Retry-After past it), 25 ms away: the leads created, the
 * items that failed, and the rate achieved (leads created per second of the node's run).
 */
async function rateLimitedCase(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, sim, proxies, credentials, options } = setting;
	const version = setting.n8n.version;
	const url = leadsUrl(sim, proxies[25]);
	const variants = {
		ours: await activate(rest, oursCreate(credentials[25])),
		'HTTP Request node': await activate(rest, httpRequestCreate(credentials[25], url)),
	};
	type Name = keyof typeof variants;
	const names = Object.keys(variants) as Name[];
	const failed: Record<string, number[]> = { ours: [], 'HTTP Request node': [] };
	const rate: Record<string, number[]> = { ours: [], 'HTTP Request node': [] };
	const measure = async (name: Name, leads: object[]) => {
		const before = await sim.leadCount();
		await sim.setRateLimit(null);
		await sim.setRateLimit(ALLOWED_RATE);
		const { ms } = await runAllowingFailure(rest, variants[name], { leads });
		await sim.setRateLimit(null);
		const created = (await sim.leadCount()) - before;
		return { failed: leads.length - created, rate: created / (ms / 1000) };
	};
	log(`${version}: rate-limited (${ALLOWED_RATE}/s), ${options.leads} leads, 25 ms: warm-up`);
	for (const name of names) await measure(name, leadBodies(sim, 10));
	for (let run = 0; run < options.runs; run++) {
		for (const name of rotated(names, run)) {
			const result = await measure(name, leadBodies(sim, options.leads));
			failed[name].push(result.failed);
			rate[name].push(result.rate);
		}
		log(
			`${version}: rate-limited, run ${run + 1} (load ${os.loadavg()[0].toFixed(2)}): ${names.map((name) => `${name} ${failed[name][run]} failed, ${rate[name][run].toFixed(1)}/s`).join('; ')}`,
		);
	}
	const where = `${options.leads} leads, ${ALLOWED_RATE} requests/s allowed, 25 ms each way`;
	for (const name of names) {
		rows.push({
			version,
			figure: `Rate-limited, ${name} (defaults): failed items (${where})`,
			unit: 'items',
			values: failed[name],
			target: name === 'ours' ? atMost(0) : undefined,
		});
		rows.push({
			version,
			figure: `Rate-limited, ${name} (defaults): achieved / allowed rate (${where})`,
			unit: 'ratio',
			values: rate[name].map((value) => value / ALLOWED_RATE),
			target: name === 'ours' ? atLeast(0.9) : undefined,
		});
	}
	for (const workflow of Object.values(variants))
		await rest.deactivateWorkflow({ id: workflow.id, active: true });
}

/** Sends signed deliveries, `inFlight` at a time; returns how many were not answered 200. */
async function deliver(
	url: string,
	secret: string,
	count: number,
	inFlight: number,
): Promise<number> {
	const body = () =>
		JSON.stringify({
			id: randomUUID().replace(/-/g, '').slice(0, 24),
			topic: 'lead/create',
			timestamp: new Date().toISOString(),
		});
	return (await postSigned(url, secret, count, inFlight, body)).length;
}

async function triggerCase(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, sim, n8n, credentials, options } = setting;
	const ours = triggerOnly('ours', credentials[0]);
	const oursWorkflow = await activate(rest, { workflow: ours.workflow });
	const oursUrl = `${n8n.baseUrl}/webhook/${ours.webhookId}/webhook`;
	const secret = await pollUntil(() => sim.signingSecret(oursUrl, 'lead/create'), {
		timeoutMs: 30_000,
		intervalMs: 250,
		what: 'the trigger to subscribe',
	});
	const floorSecret = randomUUID();
	const floor = triggerOnly('floor', credentials[0], floorSecret);
	const floorWorkflow = await activate(rest, { workflow: floor.workflow });
	const floorUrl = `${n8n.baseUrl}/webhook/${floor.webhookId}/webhook`;
	const variants = {
		ours: { url: oursUrl, secret, workflow: oursWorkflow },
		'minimal trigger': { url: floorUrl, secret: floorSecret, workflow: floorWorkflow },
	};
	type Name = keyof typeof variants;
	const perSecond: Record<Name, number[]> = { ours: [], 'minimal trigger': [] };
	const inFlight = 8;
	/** Deliveries per second: from the first send until every execution has finished. */
	const measure = async (name: Name, count: number): Promise<number> => {
		const { url, secret: key, workflow } = variants[name];
		const before = await rest.executionCount(workflow.id);
		const started = performance.now();
		// 2.x registers production webhooks a moment after activation: wait for the path.
		const refused = await deliver(url, key, count, inFlight);
		if (refused > 0) throw new Error(`${name}: ${refused} of ${count} deliveries not answered 200`);
		await pollUntil(
			async () => {
				if ((await rest.executionCount(workflow.id)) < before + count) return undefined;
				const [newest] = await rest.listExecutions(workflow.id);
				return newest && DONE.has(newest.status) ? true : undefined;
			},
			{ timeoutMs: 600_000, intervalMs: 100, what: `${count} executions of ${name}` },
		);
		return count / ((performance.now() - started) / 1000);
	};
	await sleep(1_000);
	log(`${n8n.version}: trigger: warm-up`);
	for (const name of Object.keys(variants) as Name[]) await measure(name, 10);
	for (let run = 0; run < options.runs; run++) {
		for (const name of rotated(Object.keys(variants) as Name[], run))
			perSecond[name].push(await measure(name, options.deliveries));
		log(
			`${n8n.version}: trigger, run ${run + 1}: ours ${perSecond.ours[run].toFixed(0)}/s, minimal ${perSecond['minimal trigger'][run].toFixed(0)}/s`,
		);
	}
	const where = `${options.deliveries} deliveries, ${inFlight} in flight, until every execution finished`;
	rows.push({
		version: n8n.version,
		figure: `Trigger, ours, duplicate suppression on (${where})`,
		unit: 'deliveries/s',
		values: perSecond.ours,
	});
	rows.push({
		version: n8n.version,
		figure: `Trigger, minimal trigger checking the HMAC (${where})`,
		unit: 'deliveries/s',
		values: perSecond['minimal trigger'],
	});
	rows.push({
		version: n8n.version,
		figure: 'Trigger, ours / minimal trigger',
		unit: 'ratio',
		values: perSecond.ours.map((value, run) => value / perSecond['minimal trigger'][run]),
		target: atLeast(0.9),
	});
	await rest.deactivateWorkflow({ id: oursWorkflow.id, active: true });
	await rest.deactivateWorkflow({ id: floorWorkflow.id, active: true });
}

async function getManyCase(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, sim, n8n, credentials, options } = setting;
	const workflow = await activate(rest, oursGetMany(credentials[0]));
	// The small list again, 25 ms away over TLS: where reading pages ahead shows.
	const distant = await activate(rest, oursGetMany(credentials[25]));
	const pid = n8n.pid();
	if (!pid) throw new Error('n8n is not running');
	const [small, large] = options.listSizes;
	const seconds: Record<number, number[]> = { [small]: [], [large]: [] };
	const mib: Record<number, number[]> = { [small]: [], [large]: [] };
	const distantSeconds: number[] = [];
	const measure = async (size: number) => {
		await sim.reset();
		await sim.seedLeads(size);
		const sampler = rssSampler(pid);
		const ms = await runOnce(rest, workflow, {});
		mib[size].push(sampler.stop());
		seconds[size].push(ms / 1000);
	};
	const measureDistant = async () => {
		await sim.reset();
		await sim.seedLeads(small);
		distantSeconds.push((await runOnce(rest, distant, {})) / 1000);
	};
	log(`${n8n.version}: Get Many: warm-up`);
	await measure(small);
	await measureDistant();
	seconds[small].length = 0;
	mib[small].length = 0;
	distantSeconds.length = 0;
	for (let run = 0; run < options.runs; run++) {
		for (const size of rotated([small, large, 0], run))
			await (size === 0 ? measureDistant() : measure(size));
		log(
			`${n8n.version}: Get Many, run ${run + 1} (load ${os.loadavg()[0].toFixed(2)}): ${small} in ${seconds[small][run].toFixed(2)} s (+${mib[small][run].toFixed(0)} MiB), ${large} in ${seconds[large][run].toFixed(2)} s (+${mib[large][run].toFixed(0)} MiB); ${small} at 25 ms in ${distantSeconds[run].toFixed(2)} s`,
		);
	}
	const version = n8n.version;
	rows.push({
		version,
		figure: `Get Many, Return All, ${small} leads, 25 ms each way, TLS: time`,
		unit: 's',
		values: distantSeconds,
	});
	for (const size of [small, large]) {
		rows.push({
			version,
			figure: `Get Many, Return All, ${size} leads: time`,
			unit: 's',
			values: seconds[size],
		});
		rows.push({
			version,
			figure: `Get Many, Return All, ${size} leads: n8n peak RSS above the start`,
			unit: 'MiB',
			values: mib[size],
		});
	}
	const ratio = (values: Record<number, number[]>) =>
		values[large].map((value, run) => value / values[small][run]);
	const expected = large / small;
	rows.push({
		version,
		figure: `Get Many ${large}/${small}: time`,
		unit: 'ratio',
		values: ratio(seconds),
		target: near(expected, 1),
	});
	rows.push({
		version,
		figure: `Get Many ${large}/${small}: peak RSS`,
		unit: 'ratio',
		values: ratio(mib),
		target: near(expected, 1),
	});
	// Cleanup only: right after 50,000 leads n8n has twice dropped this call; keep the figures.
	for (const active of [workflow, distant])
		await rest
			.deactivateWorkflow({ id: active.id, active: true })
			.catch((error: unknown) => log(`Get Many: deactivating ${active.id}: ${String(error)}`));
}

/** The trigger-state case (trigger-state.ts): deliveries per second by the static data carried. */
async function triggerStateCaseIn(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, sim, n8n, credentials, options } = setting;
	const figures = await triggerStateCase(
		{ rest, sim, baseUrl: n8n.baseUrl, credential: credentials[0] },
		{ sizes: options.stateSizes, deliveries: options.deliveries, runs: options.runs },
		deliver,
		(message) => log(`${n8n.version}: ${message}`),
	);
	const empty = figures.perSecond.get(0);
	for (const [size, values] of figures.perSecond) {
		const where = size === 0 ? 'an empty portal' : `${size.toLocaleString('en')} leads`;
		rows.push({
			version: n8n.version,
			figure: `Trigger on ${where} (lead ids kept, ledger full): ${options.deliveries} deliveries, 8 in flight, until the last answer`,
			unit: 'deliveries/s',
			values,
		});
		rows.push({
			version: n8n.version,
			figure: `Trigger on ${where}: static data after the runs (REST staticData, JSON)`,
			unit: 'bytes',
			values: [figures.staticDataBytes.get(size) ?? 0],
		});
		if (size > 0 && empty)
			rows.push({
				version: n8n.version,
				figure: `Trigger on ${where} / on an empty portal`,
				unit: 'ratio',
				values: values.map((value, run) => value / empty[run]),
				target: atLeast(0.5),
			});
	}
}

/** A credential stored in n8n for a simulator of a case's own, on plain loopback. */
function storedCredentialFor(rest: N8nRest, label: string) {
	return async (sim: RemoteSimulator): Promise<CredentialRef> => {
		const name = `${label} ${new URL(sim.info.url).port}`;
		const origin = { url: new URL(sim.info.url).origin };
		return {
			id: (await rest.createCredential(name, 'partnerLeadsApi', credentialData(sim, origin))).id,
			name,
		};
	};
}

/** The polling case (polling.ts), each page cap with its own simulator next door. */
async function pollingCaseIn(setting: Setting, rows: Row[]): Promise<void> {
	const { rest, n8n, options } = setting;
	const credentialFor = storedCredentialFor(rest, 'bench polling');
	await pollingCase({ version: n8n.version, rest, credentialFor, log }, options.polling, rows);
}

/** The watched case (watched.ts): Fields to Watch at 10,000 leads against the plain trigger. */
async function watchedCaseIn(setting: Setting, rows: Row[]): Promise<void> {
	const { n8n, rest, sim, credentials, options } = setting;
	await watchedCase(
		{
			version: n8n.version,
			baseUrl: n8n.baseUrl,
			rest,
			sim,
			credential: credentials[0],
			runs: options.runs,
			deliveries: options.deliveries,
			log,
		},
		rows,
	);
}

/** The burst case (burst.ts): against n8n's Webhook node, and a bulk import. */
async function burstCaseIn(setting: Setting, rows: Row[]): Promise<void> {
	const { n8n, rest, options } = setting;
	const pid = n8n.pid();
	if (!pid) throw new Error('n8n is not running');
	const credentialFor = storedCredentialFor(rest, 'bench burst');
	await burstCase(
		{
			...{ version: n8n.version, baseUrl: n8n.baseUrl, rest, pid, credentialFor, log },
			userFolder: n8n.userFolder,
			profiled: setting.profiled,
		},
		{
			...options.burst,
			burst: options.burst.leads,
			deliveries: options.deliveries,
			runs: options.runs,
		},
		rows,
	);
}

/** The import case (import-stream.ts): a bulk import at 6 a second into 50,000 leads. */
async function importCaseIn(setting: Setting, rows: Row[]): Promise<void> {
	const { n8n, rest, options } = setting;
	const pid = n8n.pid();
	if (!pid) throw new Error('n8n is not running');
	const credentialFor = storedCredentialFor(rest, 'bench import');
	await importCase(
		{
			version: n8n.version,
			baseUrl: n8n.baseUrl,
			rest,
			pid,
			credentialFor,
			log,
			userFolder: n8n.userFolder,
		},
		options.importMinutes,
		rows,
	);
}

const CASES: Record<CaseName, (setting: Setting, rows: Row[]) => Promise<void>> = {
	create: createCase,
	'rate-limited': rateLimitedCase,
	trigger: triggerCase,
	'trigger-state': triggerStateCaseIn,
	'get-many': getManyCase,
	polling: pollingCaseIn,
	watched: watchedCaseIn,
	burst: burstCaseIn,
	import: importCaseIn,
};

async function benchVersion(
	runtime: N8nRuntime,
	base: Omit<Setting, 'n8n' | 'rest' | 'credentials'>,
	rows: Row[],
	profiles: Profile[],
): Promise<void> {
	const inspectPort = base.options.profile ? await freeLoopbackPort() : undefined;
	const n8n = await startN8n({
		runtime,
		startupTimeoutMs: 180_000,
		watchWords: [],
		prepareUserFolder: (userFolder) => {
			installPackageInto(userFolder, REPO_ROOT);
			writeFloorPackage(communityPackagesFolder(userFolder));
		},
		environment: {
			NODE_EXTRA_CA_CERTS: base.certificates.caPath,
			N8N_LOG_LEVEL: 'warn',
			// Keep what the bench reads; n8n would prune old executions otherwise.
			EXECUTIONS_DATA_PRUNE: 'false',
		},
		nodeArgs: inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : [],
	});
	try {
		const rest = new N8nRest(n8n.baseUrl);
		await rest.setUpOwnerAndLogIn('Bench');
		const credentials = {} as Record<0 | 25, CredentialRef>;
		for (const distance of [0, 25] as const) {
			const name = `bench ${distance} ms`;
			const stored = await rest.createCredential(
				name,
				'partnerLeadsApi',
				credentialData(base.sim, base.proxies[distance]),
			);
			credentials[distance] = { id: stored.id, name };
		}
		const setting: Setting = { ...base, n8n, rest, credentials };
		if (base.options.profile === 'burst' && inspectPort) {
			const profiler = await InspectorProfiler.connect(inspectPort);
			setting.profiled = async (label, work) => {
				await profiler.start();
				const result = await work();
				const summary = summariseCpuProfile(await profiler.stop(), 15);
				profiles.push({ version: runtime.version, case: 'burst', label, summary });
				return result;
			};
			try {
				await CASES.burst(setting, rows);
			} finally {
				profiler.close();
			}
			return;
		}
		if (base.options.profile && inspectPort) {
			const profiler = await InspectorProfiler.connect(inspectPort);
			await profiler.start();
			await CASES[base.options.profile](setting, rows);
			const summary = summariseCpuProfile(await profiler.stop(), 15);
			profiler.close();
			profiles.push({ version: runtime.version, case: base.options.profile, summary });
			return;
		}
		for (const name of base.options.only) await CASES[name](setting, rows);
	} finally {
		await n8n.stop();
	}
}

function printReport(rows: Row[], profiles: Profile[]): void {
	print('\n| n8n | figure | unit | min / median / max | target | verdict |');
	print('| --- | --- | --- | --- | --- | --- |');
	for (const row of rows) {
		const digits = ['deliveries/s', 'requests', 'bytes'].includes(row.unit) ? 0 : 2;
		print(
			`| ${row.version} | ${row.figure} | ${row.unit} | ${formatSpread(spreadOf(row.values), digits)} | ${row.target?.text ?? ''} | ${row.target ? verdictOf(row.values, row.target) : ''} |`,
		);
	}
	for (const profile of profiles) {
		print(
			`\nCPU profile, n8n ${profile.version}, case ${profile.case}${profile.label ? ` (${profile.label})` : ''}: ${profile.summary.totalMs.toFixed(0)} ms busy`,
		);
		print('| area | self ms | share |\n| --- | --- | --- |');
		for (const entry of profile.summary.byArea)
			print(`| ${entry.name} | ${entry.selfMs.toFixed(0)} | ${(entry.share * 100).toFixed(1)}% |`);
		print('| top functions (self time) | self ms | share |\n| --- | --- | --- |');
		for (const entry of profile.summary.top)
			print(`| ${entry.name} | ${entry.selfMs.toFixed(0)} | ${(entry.share * 100).toFixed(1)}% |`);
	}
}

async function main(): Promise<void> {
	const options = parseOptions(process.argv.slice(2));
	const startedAt = new Date();
	const load = [os.loadavg()[0]];
	log(
		`versions ${options.versions.join(', ')}, ${options.runs} runs; load average ${load[0].toFixed(2)} on ${os.cpus().length} cores`,
	);
	const runtimes = await provideRuntimes(options.versions, 30 * 60_000);
	await buildPackage(5 * 60_000);
	const certificates = makeCertificates();
	const sim = await RemoteSimulator.start();
	const upstreamPort = Number(new URL(sim.info.url).port);
	const latencyProxy = await startLatencyProxy({
		upstreamPort,
		delayMs: 25,
		key: certificates.key,
		cert: certificates.cert,
	});
	// Plain loopback for 0 ms, as the service next door; TLS through the proxy at a distance.
	const proxies = { 0: { url: new URL(sim.info.url).origin }, 25: latencyProxy };
	const rows: Row[] = [];
	const profiles: Profile[] = [];
	try {
		for (const version of options.versions) {
			const runtime = runtimes.get(version);
			if (!runtime) throw new Error(`n8n ${version} was not provided`);
			await benchVersion(runtime, { sim, proxies, certificates, options }, rows, profiles);
			load.push(os.loadavg()[0]);
		}
	} finally {
		await latencyProxy.close();
		await sim.close();
		certificates.remove();
	}
	printReport(rows, profiles);
	print(
		`\nload average (1 min) at the start and after each version: ${load.map((value) => value.toFixed(2)).join(', ')}`,
	);
	const folder = path.join(REPO_ROOT, 'bench-results');
	mkdirSync(folder, { recursive: true });
	const file = path.join(folder, `bench-n8n-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
	writeFileSync(
		file,
		JSON.stringify(
			{
				startedAt,
				machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
				options,
				load,
				rows: rows.map((row) => ({
					...row,
					spread: spreadOf(row.values),
					target: row.target?.text,
					verdict: verdictOf(row.values, row.target),
				})),
				profiles,
			},
			null,
			2,
		),
	);
	log(`written ${path.relative(REPO_ROOT, file)}`);
}

runMain(main);
