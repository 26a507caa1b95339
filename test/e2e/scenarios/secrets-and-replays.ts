/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Secrets at rest and replays, in the real app: while the trigger is active and after deliveries
 * ran, none of the live secrets (client secret, access tokens, every current signing secret) is in
 * the executions, the workflow as the REST API returns it, or n8n's log; and a validly signed
 * delivery of a week-old event starts nothing.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { waitForExecutions } from '../lib/execution-data';
import { pollUntil, sleep } from '../lib/wait';
import { activateLeadTrigger, signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import type { Scenario } from './context';

/** Where each secret shows up in the given texts (names only, never the values). */
function leaks(secrets: Map<string, string>, places: Map<string, string>): string[] {
	const found: string[] = [];
	for (const [secretName, value] of secrets) {
		for (const [place, text] of places)
			if (text.includes(value)) found.push(`${secretName} in ${place}`);
	}
	return found;
}

export const secretsAndReplays: Scenario = {
	name: 'secrets at rest: no live secret in executions, the workflow or the log; a signed week-old delivery starts nothing',
	async run({ n8n, rest, sim, credential }) {
		const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
		const onCreate = subscriptions.find((subscription) => subscription.topic === 'lead/create')!;

		const lead = sim.control.portalCreateLead({
			firstName: 'Mary',
			lastName: 'Jackson',
			email: 'mary@example.com',
			partnerOrganizationId: sim.defaultPartnerOrganization.id,
			agentId: sim.defaultAgents[0]!.id,
		});
		await sim.control.waitForDeliveries(30_000);
		await waitForExecutions(rest, created.id, 1, 30_000);
		sim.control.portalUpdateLead(lead.id, { value: 42 });
		await sim.control.waitForDeliveries(30_000);
		await waitForExecutions(rest, created.id, 2, 30_000);

		// A captured delivery replayed a week later: validly signed, acknowledged, nothing runs.
		const weekOld = new Date(Date.now() - 7 * 24 * 3600_000).toISOString();
		const replay = await signedDelivery(onCreate, lead.id, weekOld);
		assert.equal(
			replay.status,
			200,
			`the week-old delivery got ${replay.status}: ${replay.text.slice(0, 200)}`,
		);
		assert.match(
			replay.text,
			/possible replay/,
			'the week-old delivery was not recognised as a possible replay',
		);
		// A fresh one with the same secret still runs: the refusal was about age, not the signature.
		const fresh = await signedDelivery(onCreate, lead.id, new Date().toISOString());
		assert.equal(
			fresh.status,
			200,
			`a fresh signed delivery got ${fresh.status}: ${fresh.text.slice(0, 200)}`,
		);
		await waitForExecutions(rest, created.id, 3, 30_000);
		await sleep(1_500); // nothing more is expected; give a wrongly started run time to show up
		const executions = await rest.listExecutions(created.id);
		assert.equal(
			executions.length,
			3,
			`expected 3 executions (2 portal changes, 1 fresh delivery), got ${executions.length}`,
		);

		// Still active: look everywhere n8n shows data.
		const secrets = new Map<string, string>([['client secret', sim.defaultKey.clientSecret]]);
		for (const [index, token] of sim.control.issuedTokens().entries())
			secrets.set(`access token #${index + 1}`, token);
		for (const subscription of subscriptionsOf(sim, webhookId))
			secrets.set(`signing secret of ${subscription.topic}`, subscription.signingSecret);
		assert.ok(
			sim.control.issuedTokens().length >= 1,
			'no access token was issued: nothing to look for',
		);

		const places = new Map<string, string>();
		const workflowJson = await rest.workflowJson(created.id);
		places.set('the workflow (REST API)', workflowJson);
		for (const summary of executions)
			places.set(`execution ${summary.id}`, JSON.stringify(await rest.getExecution(summary.id)));
		places.set("n8n's log", await readFile(n8n.logFile, 'utf8'));
		const found = leaks(secrets, places);
		assert.deepEqual(found, [], `live secrets found: ${found.join('; ')}`);
		if (workflowJson.includes('"subscriptions"')) {
			assert.match(
				workflowJson,
				/sealedSecret/,
				'the workflow shows subscriptions but no sealed secrets',
			);
		}

		await rest.deactivateWorkflow(created);
		await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
			timeoutMs: 30_000,
			what: 'the trigger to delete its subscriptions after deactivation',
		});
	},
};
