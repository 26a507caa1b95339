/* eslint-disable @typescript-eslint/no-require-imports -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
import type { INodeParameters } from 'n8n-workflow';

import { N8nHarness } from '../../test/harness/harness';
import { TriggerHost } from '../../test/harness/webhooks';
import { startSimulator } from '../../test/simulator';
import type { LeadTopic, Simulator, SimulatorOptions } from '../../test/simulator/types';
import type { DemoAccount } from './account';
import { nodeOutput, readCreateOutput, readTriggerActivity, runError } from './account';
import { demoLeadList, rowName } from './lead-list';
import type { WorkflowDefinition } from './workflows';
import { CHECK_NODES, listSubscriptionsWorkflow, PUSH_NODES, pushLeadsWorkflow } from './workflows';

/** Loopback http receivers (the real service wants HTTPS) and retries in milliseconds. */
export const DEMO_SIMULATOR_OPTIONS: SimulatorOptions = {
	allowInsecureLoopbackWebhooks: true,
	seed: 2026,
	delivery: { baseDelayMs: 20, timeoutMs: 5000 },
};

/** Share of acknowledged deliveries the service sends again, as at-least-once delivery may. */
export const DEMO_DUPLICATE_RATE = 0.5;

export const DEMO_TRIGGER_EVENTS: LeadTopic[] = ['lead/create', 'lead/update'];

/** The trigger node's parameters, as the editor stores them. */
export const DEMO_TRIGGER_PARAMETERS: INodeParameters = {
	events: DEMO_TRIGGER_EVENTS,
	fetchFullLead: true,
};

const DELIVERY_WAIT_MS = 20_000;

export interface DemoOptions {
	/** a simulator started by the caller (kept open, so its record can be checked); default: one started and closed here */
	sim?: Simulator;
}

function engineName(): string {
	const { version } = require('n8n-core/package.json') as { version: string };
	return `n8n-core ${version}`;
}

async function runOrThrow(harness: N8nHarness, definition: WorkflowDefinition, label: string) {
	const run = await harness.runWorkflow(
		harness.workflow(definition.nodes, definition.connections),
		definition.startNode,
	);
	const error = runError(run);
	if (error !== undefined) throw new Error(`The "${label}" workflow failed: ${error}`);
	return run;
}

/** Asks the service, through the node, which subscriptions this API key has. */
async function subscriptionCount(harness: N8nHarness): Promise<number> {
	const run = await runOrThrow(harness, listSubscriptionsWorkflow(harness), 'List subscriptions');
	return nodeOutput(run, CHECK_NODES.list).length;
}

/**
 * Runs the demo against a simulator: activates a trigger workflow, pushes a batch of leads
 * through a second workflow, lets the service deliver the resulting events (some twice),
 * deactivates, and returns what happened.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoAccount> {
	const started = Date.now();
	const sim = options.sim ?? (await startSimulator(DEMO_SIMULATOR_OPTIONS));
	try {
		sim.control.setDeliveryFaults({ duplicateRate: DEMO_DUPLICATE_RATE });
		const harness = new N8nHarness(sim);
		const host = await TriggerHost.start(harness, {
			parameters: DEMO_TRIGGER_PARAMETERS,
			node: { id: 'demo-trigger', name: 'Lead Events' },
		});
		let active = false;
		try {
			await host.activate();
			active = true;
			const subscriptionsWhileActive = await subscriptionCount(harness);

			const rows = demoLeadList(sim);
			const push = await runOrThrow(
				harness,
				pushLeadsWorkflow(harness, rows, sim.defaultPartnerOrganization.id),
				'Push leads',
			);
			const updated = nodeOutput(push, PUSH_NODES.update)[0]?.json;

			await sim.control.waitForDeliveries(DELIVERY_WAIT_MS);
			await host.settle();
			await host.deactivate();
			active = false;
			const subscriptionsLeft = await subscriptionCount(harness);

			const stats = sim.control.stats();
			return {
				engine: engineName(),
				push: {
					rowsSubmitted: rows.length,
					...readCreateOutput(nodeOutput(push, PUSH_NODES.create), rows),
					readBack: nodeOutput(push, PUSH_NODES.readBack).map((item) => String(item.json.id)),
					...(updated
						? { updated: { id: String(updated.id), name: rowName(updated), value: updated.value } }
						: {}),
				},
				trigger: {
					topics: [...DEMO_TRIGGER_EVENTS],
					subscriptionsWhileActive,
					...readTriggerActivity(host.executions, host.answers),
					subscriptionsLeft,
				},
				tokenRequests: harness.credentialsHelper.preAuthenticationCalls,
				apiRequests: Object.values(stats.byRoute).reduce((sum, count) => sum + count, 0),
				durationMs: Date.now() - started,
			};
		} finally {
			// Whatever failed, leave no subscription behind on the service.
			if (active) await host.deactivate().catch(() => undefined);
			await host.close();
		}
	} finally {
		if (!options.sim) await sim.close();
	}
}
