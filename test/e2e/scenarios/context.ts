/** What every scenario gets: one running n8n (logged in), the simulator behind it, a stored credential. */
import type { Simulator } from '../../simulator/types';
import type { N8nInstance } from '../lib/n8n-instance';
import type { N8nRest } from '../lib/n8n-rest';
import type { CredentialRef } from '../workflows';

export interface ScenarioContext {
	n8n: N8nInstance;
	rest: N8nRest;
	sim: Simulator;
	/** a stored credential pointing at the simulator with the default key */
	credential: CredentialRef;
}

export interface Scenario {
	name: string;
	run(context: ScenarioContext): Promise<void>;
}
