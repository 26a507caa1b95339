/* eslint-disable @n8n/community-nodes/no-restricted-imports -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The `polling` case of `npm run bench:n8n`: one scheduled poll of the Partner Referral
 * Service Polling Trigger in the real n8n app, by portal size and page cap.
 *
 * For each cap (its own simulator process, the default personality with `--list-page-cap`)
 * and each size, one after the other in the same n8n (one workflow active at a time): seed
 * the portal, activate the trigger (its first poll reads the whole list as the baseline),
 * then `polls` times: at a quiet moment (no poll running), one lead created in the portal,
 * and the next scheduled poll measured:
 * - list requests: the simulator's count of `GET /leads` since the lead was created;
 * - seconds: from the cron tick (Poll Times `0 * * * * *`, so polls start at second 0) to the
 *   `startedAt` of the execution the poll started, as n8n recorded it: the whole poll as n8n
 *   runs it (context, credential, token, every page, the full lead), not only the requests;
 * - the execution must be the only new one and hold exactly the new lead as a polled
 *   lead/create, or the case fails (no figures from a broken run);
 * - static data: the workflow's `staticData` as n8n answers `GET /rest/workflows/:id`
 *   (what it stores in the workflow's row), bytes of its JSON.
 */
import assert from 'node:assert/strict';
import os from 'node:os';

import { DEFAULT_LIST_REQUESTS_PER_MINUTE } from '../../nodes/PartnerLeadsPollingTrigger/pollTiming';
import { nodeOutput } from '../../test/e2e/lib/execution-data';
import type { N8nRest } from '../../test/e2e/lib/n8n-rest';
import { pollUntil, sleep } from '../../test/e2e/lib/wait';
import type { CredentialRef } from '../../test/e2e/workflows';
import { RemoteSimulator, routeCount } from '../sim';
import type { Target } from './figures';
import { MEASURED, pollingTrigger } from './workflows';

export const POLL_SIZES = [1_000, 10_000, 50_000];
export const POLL_CAPS = [7, 100];
const MINUTE = 60_000;
/** No lead is created this close before a tick, so the poll at that tick is the one measured. */
const BEFORE_TICK_MS = 4_000;

export interface PollingOptions {
	sizes: number[];
	/** measured polls per size and cap */
	polls: number;
}

interface PollingRow {
	version: string;
	figure: string;
	unit: string;
	values: number[];
	target?: Target;
}

export interface PollingSetting {
	version: string;
	rest: N8nRest;
	/** stores a credential for this simulator in n8n */
	credentialFor: (sim: RemoteSimulator) => Promise<CredentialRef>;
	log: (message: string) => void;
}

interface Measured {
	listRequests: number[];
	seconds: number[];
	stateBytes: number[];
	/** activating, with its first full read: wall clock of the REST call until published */
	activationSeconds: number;
}

/** An active polling workflow and how many executions it has had. */
interface Poller {
	id: string;
	executions: number;
	/** the longest full read seen so far, ms: how long after a tick a poll may still run */
	readMs: number;
}

/** Waits for a moment with no poll running: past the last tick's read, not just before the next tick. */
async function quietMoment(poller: Poller): Promise<void> {
	const busyUntil = poller.readMs + 2_000;
	if (busyUntil > MINUTE - BEFORE_TICK_MS)
		throw new Error(
			`a full read takes ${(poller.readMs / 1000).toFixed(1)} s: polls would overlap, the bench cannot tell one from the next`,
		);
	const intoMinute = Date.now() % MINUTE;
	if (intoMinute < busyUntil) await sleep(busyUntil - intoMinute);
	else if (intoMinute > MINUTE - BEFORE_TICK_MS) await sleep(MINUTE - intoMinute + busyUntil);
}

/** The trigger activated on a freshly seeded portal; its activation reads the list once. */
async function activated(
	setting: PollingSetting,
	credential: CredentialRef,
	measured: Measured,
): Promise<Poller> {
	const { rest } = setting;
	const workflow = await rest.createWorkflow(pollingTrigger(credential));
	const started = Date.now();
	await rest.activateWorkflow(workflow, 15 * MINUTE);
	const readMs = Date.now() - started;
	measured.activationSeconds = readMs / 1000;
	return { id: workflow.id, executions: 0, readMs };
}

const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/** The execution the next poll starts (bounded: the next tick plus a long poll). */
async function nextPolledExecution(rest: N8nRest, poller: Poller) {
	const expected = poller.executions + 1;
	const summary = await pollUntil(
		async () => {
			if ((await rest.executionCount(poller.id)) < expected) return undefined;
			const [newest] = await rest.listExecutions(poller.id);
			return newest && DONE.has(newest.status) ? newest : undefined;
		},
		{ timeoutMs: 10 * MINUTE, intervalMs: 200, what: `the poll that finds the new lead` },
	);
	poller.executions = expected;
	return await rest.getExecution(summary.id);
}

/** Fails unless the poll ran exactly one execution, with exactly the new lead. */
function assertOnlyTheNewLead(
	items: Array<Record<string, unknown>>,
	leadId: string,
	count: number,
	expected: number,
): void {
	assert.equal(count, expected, `the workflow has ${count} executions, expected ${expected}`);
	const seen = items.map((item) => {
		const event = (item.event ?? {}) as Record<string, unknown>;
		const lead = (item.lead ?? {}) as Record<string, unknown>;
		return `${String(event.topic)} ${String(event.id)} lead ${String(lead.id)} polled ${String(item.polled)}`;
	});
	assert.deepEqual(seen, [`lead/create ${leadId} lead ${leadId} polled true`]);
}

/** One lead created at a quiet moment; the next scheduled poll measured. */
async function measurePoll(
	setting: PollingSetting,
	sim: RemoteSimulator,
	poller: Poller,
	measured: Measured,
): Promise<void> {
	const { rest } = setting;
	await quietMoment(poller);
	await sim.resetStats();
	const leadId = await sim.portalCreateLead({ firstName: 'Polled', lastName: 'Bench' });
	const tick = Math.ceil(Date.now() / MINUTE) * MINUTE;
	const execution = await nextPolledExecution(rest, poller);
	const listRequests = routeCount(await sim.stats(), 'GET /leads');
	if (execution.status !== 'success')
		throw new Error(`the polled execution ${execution.id} ended ${execution.status}`);
	const items = nodeOutput(execution, MEASURED);
	assertOnlyTheNewLead(items, leadId, await rest.executionCount(poller.id), poller.executions);
	const ms = Date.parse(execution.startedAt ?? '') - tick;
	if (!(ms > 0 && ms < MINUTE))
		throw new Error(
			`the execution started ${ms} ms after the tick at ${new Date(tick).toISOString()}: not that tick's poll`,
		);
	const staticData = (JSON.parse(await rest.workflowJson(poller.id)) as { data?: unknown }).data;
	const bytes = JSON.stringify((staticData as { staticData?: unknown })?.staticData ?? null);
	measured.listRequests.push(listRequests);
	measured.seconds.push(ms / 1000);
	measured.stateBytes.push(Buffer.byteLength(bytes));
	poller.readMs = Math.max(poller.readMs, ms);
}

async function measureSize(
	setting: PollingSetting,
	sim: RemoteSimulator,
	credential: CredentialRef,
	where: { size: number; cap: number; polls: number },
): Promise<Measured> {
	const measured: Measured = {
		listRequests: [],
		seconds: [],
		stateBytes: [],
		activationSeconds: 0,
	};
	await sim.reset();
	await sim.seedLeads(where.size);
	const poller = await activated(setting, credential, measured);
	try {
		for (let poll = 0; poll < where.polls; poll++) {
			await measurePoll(setting, sim, poller, measured);
			setting.log(
				`${setting.version}: polling, ${where.size} leads, pages of ${where.cap}, poll ${poll + 1} (load ${os.loadavg()[0].toFixed(2)}): ${measured.listRequests[poll]} list requests, ${measured.seconds[poll].toFixed(2)} s, static data ${measured.stateBytes[poll]} bytes`,
			);
		}
	} finally {
		await setting.rest.deactivateWorkflow({ id: poller.id, active: true });
	}
	return measured;
}

function rowsOf(version: string, where: string, measured: Measured): PollingRow[] {
	const perMinute = DEFAULT_LIST_REQUESTS_PER_MINUTE;
	return [
		{
			version,
			figure: `Polling, ${where}: list requests per poll`,
			unit: 'requests',
			values: measured.listRequests,
		},
		{
			version,
			figure: `Polling, ${where}: cron tick to the execution's start`,
			unit: 's',
			values: measured.seconds,
		},
		{
			version,
			figure: `Polling, ${where}: static data n8n stored (REST staticData, JSON)`,
			unit: 'bytes',
			values: measured.stateBytes,
		},
		{
			version,
			figure: `Polling, ${where}: activating, with its first full read (wall clock of the REST call until published)`,
			unit: 's',
			values: [measured.activationSeconds],
		},
		{
			version,
			figure: `Polling, ${where}: COMPUTED minutes between full reads at the default ${perMinute} List Requests per Minute (list requests / ${perMinute}; Poll Times every minute rounds up to whole minutes)`,
			unit: 'min',
			values: measured.listRequests.map((requests) => requests / perMinute),
		},
	];
}

/** Every size under every cap, one after the other; each cap has its own simulator process. */
export async function pollingCase(
	setting: PollingSetting,
	options: PollingOptions,
	rows: PollingRow[],
): Promise<void> {
	const started = Date.now();
	for (const cap of POLL_CAPS) {
		const sim = await RemoteSimulator.start(8, cap);
		try {
			const credential = await setting.credentialFor(sim);
			for (const size of options.sizes) {
				const where = `${size.toLocaleString('en-US')} leads, pages of ${cap}`;
				setting.log(`${setting.version}: polling, ${where}: seeding and activating`);
				const measured = await measureSize(setting, sim, credential, {
					size,
					cap,
					polls: options.polls,
				});
				rows.push(...rowsOf(setting.version, where, measured));
			}
		} finally {
			await sim.close();
		}
	}
	setting.log(
		`${setting.version}: polling took ${((Date.now() - started) / MINUTE).toFixed(1)} minutes`,
	);
}
