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
	/** the n8n major versions it runs on (all when left out) */
	appliesTo?: (major: number) => boolean;
	/** runs in an n8n of its own beside the line's other scenarios (it mostly waits for Poll Times) */
	ownN8n?: boolean;
	/**
	 * It measures n8n's health under its own load: it waits until the line's scenarios in an n8n
	 * of their own have ended, whose restarts (seconds of CPU each) would be measured as its load.
	 */
	measuresHealth?: boolean;
	run(context: ScenarioContext): Promise<void>;
}

/** The scenarios that run on this n8n version. */
export function scenariosFor(version: string, scenarios: Scenario[]): Scenario[] {
	const major = Number(version.split('.')[0]);
	return scenarios.filter((scenario) => scenario.appliesTo?.(major) ?? true);
}
