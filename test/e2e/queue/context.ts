/** What every queue-mode scenario gets: the cluster, the simulator, a stored credential, figures to report. */
import type { Simulator } from '../../simulator/types';
import type { N8nRest } from '../lib/n8n-rest';
import type { QueueCluster } from '../lib/queue-mode/cluster';
import type { TokenRequestsByProcess } from '../lib/queue-mode/token-requests';
import type { CredentialRef } from '../workflows';

export interface QueueContext {
	cluster: QueueCluster;
	/** the main process's REST API (editor, workflows, executions) */
	rest: N8nRest;
	/** production webhooks, through the load balancer */
	webhooks: N8nRest;
	sim: Simulator;
	credential: CredentialRef;
	/** the owner's login, for a new session after the main process restarted */
	owner: { email: string; password: string };
	/** the simulator's token requests per n8n process ('main', 'worker-1', ...) */
	tokenRequests: TokenRequestsByProcess;
	/** figures for the report and the closing note: name → value */
	figures: Map<string, string | number>;
}

export interface QueueScenario {
	name: string;
	run(context: QueueContext): Promise<void>;
}
