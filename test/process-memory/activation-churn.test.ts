import { processMemorySizes } from '../../nodes/shared/state/processMemory';
import { N8nHarness } from '../harness/harness';
import { TriggerHost } from '../harness/webhooks';
import { post, signed, storedSecret } from '../nodes/partner-leads-trigger/helpers';
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
