/**
 * The burst of test/e2e/scenarios/burst.ts in queue mode: 300 signed lead/create deliveries 50
 * at a time through the load balancer to the two webhook processes, retried briefly, the runs on
 * the workers. Every event reaches "your system" once, the service gives up on none, and the
 * webhook processes' readiness endpoint answers throughout. Not in CI: beside the other line's
 * cluster it failed on 2.41.1 (session.ts, QUEUE_SCENARIOS_BY_NAME_ONLY). N8N_E2E_BURST=1000 for a
 * bulk import (bench/README.md has the figures).
 */
import { startReceiver } from '../lib/receiver';
import { BURST, burstOn, burstWorkflow } from '../scenarios/burst';
import type { QueueScenario } from './context';

export const burstInQueueMode: QueueScenario = {
	name: `queue mode: a burst of ${BURST} deliveries at once to the webhook processes, retried briefly: every event runs once on the workers, none given up, n8n ready throughout`,
	async run({ cluster, rest, sim, credential }) {
		const receiver = await startReceiver();
		// the node's default; the webhook processes, where no trigger() runs, start one execution each
		const { workflow, webhookId } = burstWorkflow(credential, receiver.url);
		const created = await rest.createWorkflow(workflow);
		try {
			await rest.activateWorkflow(created);
			// readiness probed where the service delivers: the webhook processes, through the balancer
			const where = {
				baseUrl: cluster.balancerUrl,
				version: `${cluster.version} queue mode`,
				logFiles: [cluster.main, ...cluster.workers, ...cluster.webhooks].map(
					(process) => process.logFile,
				),
			};
			await burstOn(where, rest, sim, {
				workflowId: created.id,
				webhookId,
				receiver,
				sharesExecutions: false,
			});
		} finally {
			await rest.deactivateWorkflow(created).catch(() => undefined);
			await receiver.close();
		}
	},
};
