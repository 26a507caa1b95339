/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * One n8n process (regular mode) running lead workflows that start together: one token request
 * for a new key, and one after each expiry, also with runs started 15 ms apart, where a
 * run reading the credential between another run's new token and n8n saving it used to ask for
 * its own (issue 34). The queue-mode counterpart is queue/lead-operations.ts.
 */
import assert from 'node:assert/strict';

import { log } from '../lib/report';
import { runsTogether } from '../lib/run-workflow';
import { CREDENTIAL_TYPE, credentialData } from '../lib/service';
import { createAndGetLeadsWorkflow } from '../workflows';
import type { Scenario } from './context';
import { INPUT_LEADS } from './create-and-get';

export const leadRunsTogether: Scenario = {
	name: 'lead runs starting together in one process: one token request for a new key, and one after each expiry with runs 15 ms apart',
	async run({ n8n, rest, sim }) {
		// A key of its own: the process already holds a token for the default key's credential.
		const key = sim.control.createKey();
		const name = 'e2e runs together';
		const stored = await rest.createCredential(
			name,
			CREDENTIAL_TYPE,
			credentialData(sim, { clientId: key.clientId, clientSecret: key.clientSecret }),
		);
		const { workflow, webhookPath } = createAndGetLeadsWorkflow(
			{ id: stored.id, name },
			{
				partnerOrganizationId: sim.defaultPartnerOrganization.id,
				agentId: sim.defaultAgents[0]!.id,
			},
		);
		const created = await rest.createWorkflow(workflow);
		await rest.activateWorkflow(created);
		const { runTogether } = runsTogether({
			rest,
			webhooks: rest,
			workflowId: created.id,
			webhookPath,
			body: { leads: INPUT_LEADS },
			serviceStats: () => sim.control.stats(),
		});
		sim.control.resetStats();
		await runTogether(6);
		const counts = [sim.control.stats().tokenRequests];
		for (let round = 1; round <= 3; round++) {
			sim.control.expireTokens();
			sim.control.resetStats();
			await runTogether(8, 15);
			counts.push(sim.control.stats().tokenRequests);
		}
		log(
			`[n8n ${n8n.version}] token requests: 6 runs at once with a new key ${counts[0]}; after an expiry, 8 runs 15 ms apart: ${counts.slice(1).join(', ')}`,
		);
		assert.deepEqual(counts, [1, 1, 1, 1], 'token requests per round: one each');
		await rest.deactivateWorkflow(created);
	},
};
