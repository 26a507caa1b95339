import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { TriggerHost } from '../../harness/webhooks';
import type { Lead } from '../../simulator';
import { forgetTriggerNode } from '../../../nodes/shared/state/processMemory';
import { RECOVERY_TIMING } from '../../../nodes/PartnerLeadsTrigger/recovery/timing';
import type { Setup } from './helpers';
import { ALL_TOPICS, redeliver, setUp } from './helpers';
import { eventually, quickTimings } from './recovery-helpers';

/**
 * Recovery of missed events when the service's clock and n8n's differ (the spec does not say
 * they agree): the simulator stamps leads and events 10 minutes behind or ahead of the machine
 * n8n runs on. Recovery judges the leads in the service's own time, so the offset decides
 * nothing: missed changes run once, the leads present at activation never.
 */

const TEN_MINUTES = 10 * 60_000;

function listRequests(setup: Setup): number {
	return setup.sim.control.stats().byRoute['GET /leads'] ?? 0;
}

/** Waits until the trigger has made no list request for longer than a follow-up check takes. */
async function checksEnded(setup: Setup): Promise<void> {
	await eventually(
		() => listRequests(setup) > 0,
		() => 'a check for missed events',
	);
	let seen = -1;
	while (seen !== listRequests(setup)) {
		seen = listRequests(setup);
		await sleep(RECOVERY_TIMING.settleMs + 1_500);
	}
	await setup.host.settle();
}

/** Lead timestamps have whole-second resolution under some personalities. */
async function nextSecond(): Promise<void> {
	await sleep(1_000 - (Date.now() % 1_000) + 20);
}

function created(setup: Setup, name: string): Lead {
	return setup.sim.control.portalCreateLead({
		firstName: name,
		lastName: 'Clock',
		email: `${name}@example.com`,
	});
}

function ran(host: TriggerHost): string[] {
	return host.executions.map((execution) => {
		const json = execution.items[0].json as IDataObject & {
			event: { id: string; topic: string };
		};
		return `${json.event.topic} ${json.event.id}${json.recovered ? ' recovered' : ''}`;
	});
}

async function stopN8n(setup: Setup): Promise<ReturnType<TriggerHost['persisted']>> {
	const persisted = setup.host.persisted();
	await setup.host.close();
	forgetTriggerNode(setup.host.workflow().id, setup.host.node.id);
	return persisted;
}

async function startN8n(setup: Setup, persisted: ReturnType<TriggerHost['persisted']>) {
	setup.host = await TriggerHost.start(setup.harness, persisted);
	await setup.host.activate('init');
}

/** Restarts n8n and waits for the recovered executions (at least `count`). */
async function restartAndRecover(
	setup: Setup,
	persisted: ReturnType<TriggerHost['persisted']>,
	count: number,
): Promise<string[]> {
	setup.sim.control.resetStats();
	await startN8n(setup, persisted);
	await eventually(
		() => setup.host.executions.length >= count,
		() => `${count} recovered executions, got ${JSON.stringify(ran(setup.host))}`,
	);
	await checksEnded(setup);
	return ran(setup.host).sort();
}

describe.each([
	['behind', -TEN_MINUTES],
	['ahead of', TEN_MINUTES],
])('PartnerLeadsTrigger recovery with the service clock 10 minutes %s n8n', (_, clockOffsetMs) => {
	let setup: Setup;

	// A real settle (short): the newest changes wait for a follow-up check.
	quickTimings(() => setup, {
		firstCheckDelayMs: 50,
		settleMs: 300,
		tickMs: 10,
		retryDelayMs: 200,
	});

	it('runs each missed create and update once, the leads present at activation never, and a late retry nothing', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { clockOffsetMs, delivery: { maxAttempts: 1 } });
		const present = [created(setup, 'present0'), created(setup, 'present1')];
		created(setup, 'untouched');
		await setup.host.activate();
		await nextSecond();

		// First stop: changes made while n8n is down are lost as deliveries.
		let persisted = await stopN8n(setup);
		const missed = created(setup, 'missed');
		setup.sim.control.portalUpdateLead(present[0].id, { value: 1 });
		await setup.sim.control.waitForDeliveries(10_000);
		const lost = setup.sim.control.deliveries().filter((attempt) => attempt.status !== 200);
		expect(lost).toHaveLength(2);
		expect(await restartAndRecover(setup, persisted, 2)).toEqual(
			[`lead/create ${missed.id} recovered`, `lead/update ${present[0].id} recovered`].sort(),
		);

		// The service's late retry of a recovered change runs nothing.
		const retried = lost.find((attempt) => attempt.leadId === missed.id);
		expect(await redeliver(setup, missed.id, 'lead/create', retried?.timestamp)).toBe(200);
		await setup.host.settle();
		expect(setup.host.executions).toHaveLength(2);

		// Second stop, soon after: the changes are within the clock offset of the last check.
		await nextSecond();
		persisted = await stopN8n(setup);
		const missedLater = created(setup, 'missedLater');
		setup.sim.control.portalUpdateLead(present[1].id, { value: 2 });
		setup.sim.control.portalUpdateLead(missed.id, { value: 3 });
		await setup.sim.control.waitForDeliveries(10_000);
		expect(await restartAndRecover(setup, persisted, 3)).toEqual(
			[
				`lead/create ${missedLater.id} recovered`,
				`lead/update ${present[1].id} recovered`,
				`lead/update ${missed.id} recovered`,
			].sort(),
		);

		// Another restart recovers nothing more.
		persisted = await stopN8n(setup);
		setup.sim.control.resetStats();
		await startN8n(setup, persisted);
		await checksEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});

	it('a newly activated workflow runs nothing for the leads the portal already holds', async () => {
		setup = await setUp({ events: ALL_TOPICS }, { clockOffsetMs, delivery: { maxAttempts: 1 } });
		for (let index = 0; index < 5; index++) created(setup, `existing${index}`);
		await nextSecond();
		created(setup, 'newest');
		await setup.host.activate();
		// n8n's clock moves past the settle, so that a check judges the leads.
		await sleep(RECOVERY_TIMING.settleMs + 500);
		const persisted = await stopN8n(setup);
		setup.sim.control.resetStats();
		await startN8n(setup, persisted);
		await checksEnded(setup);
		expect(setup.host.executions).toHaveLength(0);
	});
});
