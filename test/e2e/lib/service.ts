/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The Partner Referral Service simulator, in-process in the runner, as n8n sees it:
 * its addresses become the credential's fields.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import { simulatorCredentialData } from '../../harness/simulator-credential';
import type { Simulator, SimulatorOptions } from '../../simulator/types';

export const CREDENTIAL_TYPE = 'partnerLeadsApi';

export async function startService(
	options: Pick<SimulatorOptions, 'onTokenRequest'> = {},
): Promise<Simulator> {
	const entry = path.resolve(__dirname, '..', '..', 'simulator', 'index.ts');
	if (!existsSync(entry)) throw new Error(`the service simulator is missing (${entry})`);
	// Loaded lazily so that a broken simulator is a clear failure of this step, not of the whole runner.
	const { startSimulator } = await import('../../simulator');
	return await startSimulator({
		allowInsecureLoopbackWebhooks: true,
		// n8n answers on loopback within milliseconds; retries need not wait seconds
		delivery: { baseDelayMs: 50, maxAttempts: 6, timeoutMs: 10_000 },
		...options,
	});
}

/** Credential data pointing at the simulator, with the default key (or another secret). */
export function credentialData(
	sim: Simulator,
	overrides: Record<string, string> = {},
): Record<string, unknown> {
	const data: Record<string, unknown> = simulatorCredentialData(sim, overrides);
	// n8n fills the hidden access token itself
	delete data.accessToken;
	return data;
}
