/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The nodes against a service that made other choices where the spec says "not shown": the
 * simulator's harshest personality (pages of at most 7 leads whatever is asked, bare bodies,
 * newest first, 204 answers, 403 on auth failures, text error bodies, UUIDs), in the real app.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import type { Simulator } from '../../simulator/types';
import { executionError, nodeOutput, waitForExecutions } from '../lib/execution-data';
import { activateLeadTrigger, subscriptionsOf } from '../lib/lead-trigger';
import { runThroughWebhook } from '../lib/run-workflow';
import { CREDENTIAL_TYPE, credentialData } from '../lib/service';
import { pollUntil, withTimeout } from '../lib/wait';
import { listAndUpsertWorkflow, NODE } from '../workflows';
import type { Scenario, ScenarioContext } from './context';

export const CAPPED_PERSONALITY = 'capped-7-bare-403-text';
const LEADS = 60;

async function startCappedService(): Promise<Simulator> {
	const { startSimulator } = await import('../../simulator');
	return await startSimulator({
		personality: CAPPED_PERSONALITY,
		allowInsecureLoopbackWebhooks: true,
		delivery: { baseDelayMs: 50, maxAttempts: 6, timeoutMs: 10_000 },
	});
}

async function checkAgainst(sim: Simulator, { rest }: ScenarioContext): Promise<void> {
	const name = 'e2e capped service';
	const stored = await rest.createCredential(name, CREDENTIAL_TYPE, credentialData(sim));
	const credential = { id: stored.id, name };
	const tested = await rest.testCredential({
		...credential,
		type: CREDENTIAL_TYPE,
		data: credentialData(sim),
	});
	assert.equal(tested.status, 'OK', `credential test answered ${tested.status}: ${tested.message}`);
	const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
	const wrong = await rest.testCredential({
		...credential,
		type: CREDENTIAL_TYPE,
		data: credentialData(sim, { clientSecret: wrongSecret }),
	});
	assert.equal(wrong.status, 'Error', `credential test of a wrong secret answered ${wrong.status}`);
	assert.match(
		wrong.message,
		/client\s*id|client\s*secret/i,
		`a 403 from the token issuer is not explained: "${wrong.message}"`,
	);

	sim.control.seedLeads(LEADS);
	// newest first: the oldest lead is on the last page
	const target = sim.control.listLeads()[0]!;
	const ids = {
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0]!.id,
	};
	const { workflow, webhookPath } = listAndUpsertWorkflow(credential, ids);
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	try {
		const run = async (body: Record<string, unknown>, count: number) => {
			await runThroughWebhook(rest, webhookPath, body);
			const latest = (await waitForExecutions(rest, created.id, count, 60_000))[0]!;
			const execution = await rest.getExecution(latest.id);
			assert.equal(
				execution.status,
				'success',
				`execution ${latest.id} ended ${execution.status}: ${executionError(execution) ?? ''}`,
			);
			return execution;
		};

		const all = await run(
			{ returnAll: true, limit: 1, email: target.email, firstName: 'Found' },
			1,
		);
		const listed = nodeOutput(all, NODE.getMany).map((lead) => String(lead.id));
		assert.equal(listed.length, LEADS, `Return All gave ${listed.length} of ${LEADS} leads`);
		assert.equal(new Set(listed).size, LEADS, 'Return All gave a lead twice');
		const [upserted] = nodeOutput(all, NODE.upsert);
		assert.equal(
			upserted?._action,
			'updated',
			`Create or Update did not find the lead on the last page (${String(upserted?._action)})`,
		);
		assert.equal(upserted?.id, target.id);
		assert.equal(
			sim.control.listLeads().filter((lead) => lead.email === target.email).length,
			1,
			'a duplicate lead was created',
		);

		const some = await run(
			{
				returnAll: false,
				limit: 20,
				email: `new-${randomBytes(4).toString('hex')}@example.com`,
				firstName: 'New',
			},
			2,
		);
		assert.equal(
			nodeOutput(some, NODE.getMany).length,
			20,
			'Limit 20 did not give exactly 20 leads',
		);
		assert.equal(nodeOutput(some, NODE.upsert)[0]?._action, 'created');
		assert.equal(sim.control.listLeads().length, LEADS + 1);
	} finally {
		await rest.deactivateWorkflow(created);
	}

	// the trigger: subscriptions made on activation, all removed on deactivation (the service answers 204)
	const trigger = await activateLeadTrigger(rest, sim, credential);
	assert.equal(
		trigger.subscriptions.length,
		3,
		`activation made ${trigger.subscriptions.length} subscriptions`,
	);
	await rest.deactivateWorkflow(trigger.created);
	await pollUntil(() => (subscriptionsOf(sim, trigger.webhookId).length === 0 ? true : undefined), {
		timeoutMs: 30_000,
		what: 'the trigger to delete its subscriptions on deactivation',
	});
}

export const cappedService: Scenario = {
	name: `a service that pages by 7 and answers in other shapes (${CAPPED_PERSONALITY}): Return All, Limit, Create or Update, credential test, trigger`,
	async run(context) {
		const sim = await startCappedService();
		try {
			await checkAgainst(sim, context);
		} finally {
			await withTimeout(sim.close(), 10_000, 'closing the capped simulator');
		}
	},
};
