import { REPLACEMENT_WAIT, UNPUBLISH_WAIT } from '../../nodes/PartnerLeadsTrigger/runs/executor';
import { processMemorySizes } from '../../nodes/shared/state/processMemory';
import { N8nHarness } from '../harness/harness';
import { LogCapture } from '../security/capture';
import { TriggerHost } from '../harness/webhooks';
import { post, signed, storedSecret } from '../nodes/partner-leads-trigger/helpers';
import { eventually } from '../nodes/partner-leads-trigger/recovery-helpers';
import { startSimulator } from '../simulator';
import type { Simulator } from '../simulator';

/**
 * A long-running n8n activates and deactivates many trigger workflows. Every trigger node
 * here is activated in n8n-core's real lifecycle, receives a signed delivery that runs (so
 * each per-node memory holds something), and is deactivated: afterwards the process keeps
 * nothing of any of them.
 */
const TRIGGER_NODES = 1_000;

describe('process memory of the trigger', () => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ allowInsecureLoopbackWebhooks: true, seed: 26 });
		harness = new N8nHarness(sim);
	});
	afterAll(async () => await sim.close());

	it(`is empty after ${TRIGGER_NODES.toLocaleString('en')} trigger nodes were activated, ran a delivery and were deactivated`, async () => {
		const heldWhileActive: Array<Record<string, number>> = [];
		const capture = new LogCapture();
		capture.start();
		try {
			for (let node = 0; node < TRIGGER_NODES; node++) {
				const host = await TriggerHost.start(harness, {
					parameters: { events: ['lead/create'], fetchFullLead: false },
				});
				try {
					await host.activate();
					const { rawBody, headers } = signed(
						storedSecret({ sim, host }, 'lead/create'),
						`lead-${node}`,
						'lead/create',
					);
					expect(await post(host.webhookUrl(), rawBody, headers)).toBe(200);
					await host.settle();
					heldWhileActive.push(processMemorySizes());
					await host.deactivate();
				} finally {
					await host.close();
				}
			}
		} finally {
			// restored even when a node fails, so the rest of the file logs as usual
			capture.stop();
		}
		expect(heldWhileActive).toHaveLength(TRIGGER_NODES);
		// While active, the node had its recent events, ledger and secret box in memory.
		for (const sizes of heldWhileActive) {
			expect(sizes).toMatchObject({
				recentEvents: 1,
				recoveryLedgers: 1,
				secretBoxes: 1,
				runExecutors: 1,
				runsInFlight: 1,
			});
		}
		// each unsubscribe logs what the process still keeps, at debug level, for an operator
		const unsubscribed = capture.records.filter(
			(record) =>
				record.channel === 'n8n logger.debug' &&
				String(record.args[0]).startsWith('Partner Referral Service Trigger unsubscribed'),
		);
		expect(unsubscribed).toHaveLength(TRIGGER_NODES);
		expect(unsubscribed.at(-1)?.args[1]).toEqual({ processMemory: processMemorySizes() });
		expect(processMemorySizes()).toEqual({
			recentEvents: 0,
			deliveriesInProgress: 0,
			recoveryLedgers: 0,
			recoveryFollowUps: 0,
			runExecutors: 0,
			runsInFlight: 0,
			secretBoxes: 0,
			testEventHandovers: 0,
			watchedLeads: 0,
		});
	}, 600_000);
});

describe('process memory of a trigger node deactivated while its runs were under way', () => {
	let sim: Simulator;
	let harness: N8nHarness;
	const defaultWait = REPLACEMENT_WAIT.ms;
	const defaultUnpublishWait = UNPUBLISH_WAIT.ms;

	beforeAll(async () => {
		sim = await startSimulator({ allowInsecureLoopbackWebhooks: true, seed: 27 });
		harness = new N8nHarness(sim);
	});
	afterAll(async () => {
		REPLACEMENT_WAIT.ms = defaultWait;
		UNPUBLISH_WAIT.ms = defaultUnpublishWait;
		await sim.close();
	});

	async function activateAndDeactivateAnother(): Promise<void> {
		const other = await TriggerHost.start(harness, { parameters: { events: ['lead/create'] } });
		try {
			await other.activate();
			await other.deactivate();
		} finally {
			await other.close();
		}
	}

	it('is kept for a trigger that would replace it (an update), and let go once none did for the wait', async () => {
		const host = await TriggerHost.start(harness, {
			parameters: { events: ['lead/create'], fetchFullLead: false },
		});
		// a run that outlasts the wait an unpublish gives it (UNPUBLISH_WAIT)
		host.executionMs = 500;
		UNPUBLISH_WAIT.ms = 100;
		await host.activate();
		const { rawBody, headers } = signed(
			storedSecret({ sim, host }, 'lead/create'),
			'lead-under-way',
			'lead/create',
		);
		const answered = post(host.webhookUrl(), rawBody, headers);
		await eventually(() => host.concurrency.now === 1, 'the run under way');
		// n8n deletes the webhooks first, then closes the trigger: the run is still under way
		await host.deactivate();
		expect(await answered).toBe(200);
		await host.close();
		expect(host.executions).toHaveLength(1);
		expect(processMemorySizes()).toMatchObject({ runExecutors: 1, runsInFlight: 1 });

		// another trigger node starts and stops within the wait: this one's memory stays
		await activateAndDeactivateAnother();
		expect(processMemorySizes()).toMatchObject({ runExecutors: 1, runsInFlight: 1 });
		// and once the wait is over: nothing replaced it, it goes
		REPLACEMENT_WAIT.ms = 0;
		await activateAndDeactivateAnother();
		expect(Object.values(processMemorySizes()).every((size) => size === 0)).toBe(true);
	});
});
