/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Every credential failure the service describes gets a message naming its cause, the same on
 * both n8n lines: in the credential test and in a run (bad id/secret, wrong audience, revoked
 * key, unknown Company ID, unreachable host), and a plain-http address for another host is
 * refused before anything is sent.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';

import type { Simulator } from '../../simulator/types';
import { executionError, waitForExecutions } from '../lib/execution-data';
import type { N8nRest } from '../lib/n8n-rest';
import { log } from '../lib/report';
import { runThroughWebhook } from '../lib/run-workflow';
import { CREDENTIAL_TYPE, credentialData } from '../lib/service';
import { schemaWorkflow } from '../workflows';
import type { Scenario } from './context';

interface Case {
	name: string;
	data: Record<string, string>;
	/** what the message must say, in the credential test and at run time */
	expected: RegExp;
	/** before the run: make the stored token unusable so the run must renew it (a key revoked after use) */
	afterFirstRun?: () => void;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

async function cases(sim: Simulator): Promise<Case[]> {
	const revokedLater = sim.control.createKey();
	const revokedBefore = sim.control.createKey();
	sim.control.revokeKey(revokedBefore.clientId);
	const port = await closedPort();
	return [
		{
			name: 'bad client secret',
			data: { clientSecret: 'wrong-secret-0123456789' },
			expected: /'Client ID' or 'Client Secret'/,
		},
		{
			name: 'bad client id',
			data: { clientId: 'no-such-client-id' },
			expected: /'Client ID' or 'Client Secret'/,
		},
		{ name: 'wrong audience', data: { audience: sim.devUrl }, expected: /audience/i },
		{
			name: 'revoked key',
			data: { clientId: revokedBefore.clientId, clientSecret: revokedBefore.clientSecret },
			expected: /revoked/,
		},
		{
			name: 'key revoked after use (stored token refused)',
			data: { clientId: revokedLater.clientId, clientSecret: revokedLater.clientSecret },
			expected: /revoked/,
			afterFirstRun: () => {
				sim.control.revokeKey(revokedLater.clientId);
				sim.control.expireTokens();
			},
		},
		{
			name: 'unknown Company ID',
			data: { companyId: 'bbbbbbbbbbbbbbbbbbbbbbbb' },
			expected: /Unknown Company ID "bbbbbbbbbbbbbbbbbbbbbbbb"/,
		},
		// the audience stays the real API address, so the token exchange succeeds and the API call cannot connect
		{
			name: 'unreachable API host',
			data: { baseUrl: `http://127.0.0.1:${port}`, audience: sim.url },
			expected: /(reach|connect).*(API Base Address)|API Base Address.*(reach|connect)/is,
		},
		{
			name: 'unreachable token issuer',
			data: { authUrl: `http://127.0.0.1:${port}/auth` },
			expected: /token issuer.*(refused|reach)|(refused|reach).*token issuer/is,
		},
		{
			name: 'plain http API address of another host',
			data: { baseUrl: 'http://api.example.com' },
			expected: /plain http/,
		},
		{
			name: 'plain http token issuer of another host',
			data: { authUrl: 'http://auth.example.com' },
			expected: /plain http/,
		},
	];
}

async function runOnce(
	rest: N8nRest,
	workflowId: string,
	path: string,
	runs: number,
): Promise<string | undefined> {
	await runThroughWebhook(rest, path, {});
	const [latest] = await waitForExecutions(rest, workflowId, runs, 60_000);
	return executionError(await rest.getExecution(latest!.id));
}

export const credentialMessages: Scenario = {
	name: 'credential failures: the same clear message in the credential test and at run time; no plain http to other hosts',
	async run({ rest, sim }) {
		const failures: string[] = [];
		for (const each of await cases(sim)) {
			const data = credentialData(sim, each.data);
			const stored = await rest.createCredential(`e2e ${each.name}`, CREDENTIAL_TYPE, data);
			const credential = { id: stored.id, name: `e2e ${each.name}` };

			if (!each.afterFirstRun) {
				const tested = await rest.testCredential({ ...credential, type: CREDENTIAL_TYPE, data });
				log(`  credential test, ${each.name}: ${tested.status}: ${tested.message}`);
				if (tested.status !== 'Error' || !each.expected.test(tested.message)) {
					failures.push(
						`credential test, ${each.name}: "${tested.message}" does not match ${each.expected}`,
					);
				}
			}

			const { workflow, webhookPath } = schemaWorkflow(credential);
			const created = await rest.createWorkflow(workflow);
			await rest.activateWorkflow(created);
			let runs = 0;
			if (each.afterFirstRun) {
				const first = await runOnce(rest, created.id, webhookPath, ++runs);
				assert.equal(
					first,
					undefined,
					`${each.name}: the run before the revocation failed: ${first}`,
				);
				each.afterFirstRun();
			}
			const message = await runOnce(rest, created.id, webhookPath, ++runs);
			log(`  run, ${each.name}: ${message}`);
			if (!message || !each.expected.test(message))
				failures.push(`run, ${each.name}: "${message}" does not match ${each.expected}`);
			for (const secret of [data.clientSecret, sim.defaultKey.clientSecret]) {
				if (typeof secret === 'string' && message?.includes(secret))
					failures.push(`run, ${each.name}: the message holds the client secret`);
			}
			await rest.deactivateWorkflow(created);
		}
		assert.deepEqual(failures, [], failures.join('\n'));
	},
};
