import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { TriggerHost } from '../../harness/webhooks';
import type { Lead } from '../../simulator';
import { forgetTriggerNode } from '../../../nodes/shared/state/processMemory';
import { RECOVERY_TIMING } from '../../../nodes/PartnerLeadsTrigger/recovery/timing';
import { PREPARE_RETRY } from '../../../nodes/PartnerLeadsTrigger/runs/queue';
import type { Setup } from './helpers';

/** What recovery and restart tests share: n8n stopped and started, and what ran. */

/**
 * Bounded wait for a condition the trigger brings about in the background. The bound is only
 * how long a failing test takes to say so: a busy machine lists a 16,000-lead portal in well
 * over 15 s, so it is set far above what any wait needs here.
 */
export async function eventually(
	condition: () => boolean,
	what: string | (() => string),
	timeoutMs = 90_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline)
			throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
		await sleep(20);
	}
}

/**
 * Creates `count` leads at once while the service stalls lead reads, so every delivery is
 * answered (accepted) before any run starts, whatever the machine's speed; then lets the runs go
 * with the host set to die at its `dieAfterEmits`-th emit, and waits for the kill: the host that
 * died, and the events the service saw answered 200 (`topic id timestamp`).
 */
export async function createThroughKill(
	setup: Setup,
	count: number,
	dieAfterEmits: number,
): Promise<{ killed: TriggerHost; answered: Set<string> }> {
	setup.sim.control.setFaults('GET /leads/:id', { held: true });
	for (let index = 0; index < count; index++) created(setup, `killed${index}`);
	await setup.sim.control.waitForDeliveries(60_000);
	const answered = new Set(
		setup.sim.control
			.deliveries()
			.filter((delivery) => delivery.status === 200)
			.map((delivery) => `${delivery.topic} ${delivery.leadId} ${delivery.timestamp}`),
	);
	setup.host.dieAfterEmits = dieAfterEmits;
	setup.sim.control.setFaults('GET /leads/:id', {});
	await eventually(() => setup.host.dead, 'the kill');
	return { killed: setup.host, answered };
}

export function listRequests(setup: Setup): number {
	return setup.sim.control.stats().byRoute['GET /leads'] ?? 0;
}

/** Waits until the trigger has read the list and then made no list request for a while: a check ended. */
export async function checkEnded(setup: Setup): Promise<void> {
	await eventually(() => listRequests(setup) > 0, 'a check for missed events');
	let seen = -1;
	while (seen !== listRequests(setup)) {
		seen = listRequests(setup);
		await sleep(300);
	}
	await setup.host.settle();
}

/** Lead timestamps have whole-second resolution under some personalities: step past the activation's second. */
export async function nextSecond(): Promise<void> {
	await sleep(1_000 - (Date.now() % 1_000) + 20);
}

/** A lead created in the portal (not through the API), named for the test. */
export function created(setup: Pick<Setup, 'sim'>, name: string): Lead {
	return setup.sim.control.portalCreateLead({
		firstName: name,
		lastName: 'Test',
		email: `${name}@example.com`,
	});
}

export type Output = {
	event: { id: string; topic: string; timestamp: string };
	lead?: IDataObject;
	recovered?: boolean;
	recoveryReason?: string;
};

export function outputs(host: TriggerHost): Output[] {
	return host.executions.map((execution) => execution.items[0].json as unknown as Output);
}

/** `<topic> <lead id>`, with ` recovered` for recovered runs. */
export function ran(host: TriggerHost): string[] {
	return outputs(host).map(
		(output) => `${output.event.topic} ${output.event.id}${output.recovered ? ' recovered' : ''}`,
	);
}

/** A new process: it knows nothing of what the stopped one kept in memory. */
function forgetProcessMemory(host: TriggerHost): void {
	forgetTriggerNode(host.workflow().id, host.node.id);
}

/** n8n stops: the trigger's address refuses connections, its memory is gone. */
export async function stopN8n(setup: Setup): Promise<ReturnType<TriggerHost['persisted']>> {
	const persisted = setup.host.persisted();
	await setup.host.close();
	forgetProcessMemory(setup.host);
	return persisted;
}

export async function startN8n(
	setup: Setup,
	persisted: ReturnType<TriggerHost['persisted']>,
): Promise<TriggerHost> {
	setup.host = await TriggerHost.start(setup.harness, persisted);
	await setup.host.activate('init');
	return setup.host;
}

/** n8n is started again after a hard kill: a new process, with what the database holds. */
export async function restartAfterKill(setup: Setup): Promise<TriggerHost> {
	const persisted = await stopN8n(setup);
	setup.host.store.frozen = false;
	return await startN8n(setup, persisted);
}

/**
 * For one describe: the trigger's recovery timings (and how long a run whose lead could not be
 * read waits to be tried again) short enough for a test, put back afterwards; after each test
 * its setup closed and the ledgers' process memory forgotten.
 */
export function quickTimings(
	setupNow: () => Setup | undefined,
	timing: Partial<typeof RECOVERY_TIMING>,
): void {
	const defaults = { timing: { ...RECOVERY_TIMING }, retry: { ...PREPARE_RETRY } };
	beforeAll(() => {
		Object.assign(RECOVERY_TIMING, timing);
		Object.assign(PREPARE_RETRY, { firstMs: 50, maxMs: 400 });
	});
	afterAll(() => {
		Object.assign(RECOVERY_TIMING, defaults.timing);
		Object.assign(PREPARE_RETRY, defaults.retry);
	});
	afterEach(async () => {
		const setup = setupNow();
		await setup?.close();
		if (setup) forgetProcessMemory(setup.host);
	});
}
