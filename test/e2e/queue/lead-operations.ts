/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Lead operations run by the workers: at most one token request per worker process for runs
 * spread over both workers and starting together, and again after an expiry while both are
 * busy. The simulator tells which process sent each token request (token-requests.ts).
 */
import assert from 'node:assert/strict';

import { runsTogether } from '../lib/run-workflow';
import { INPUT_LEADS } from '../scenarios/create-and-get';
import { createAndGetLeadsWorkflow } from '../workflows';
import type { Simulator } from '../../simulator/types';
import type { TokenRequestsByProcess } from '../lib/queue-mode/token-requests';
import type { QueueScenario } from './context';

interface TokenFigures {
	total: number;
	byProcess: Record<string, number>;
	text: string;
}

function tokenFigures(sim: Simulator, tokenRequests: TokenRequestsByProcess): TokenFigures {
	const total = sim.control.stats().tokenRequests;
	const byProcess = tokenRequests.snapshot();
	const each = Object.entries(byProcess).map(([name, count]) => `${name} ${count}`);
	return { total, byProcess, text: `${total} (${each.join(', ') || 'none'})` };
}

/**
 * The package's promise: a worker process asks for a token at most once while it is valid,
 * also when executions start together or renew together after an expiry; the main process
 * runs no execution here and asks for none.
 */
function assertOnePerWorker(figures: TokenFigures, what: string): void {
	for (const [name, count] of Object.entries(figures.byProcess))
		assert.ok(
			name.startsWith('worker-') ? count <= 1 : count === 0,
			`${what}: ${name} asked for ${count} tokens (${figures.text})`,
		);
	assert.ok(
		figures.total >= 1 && figures.total <= 2,
		`${what} asked for ${figures.total} tokens: at most 1 per worker (${figures.text})`,
	);
}

export const leadOperationsOnWorkers: QueueScenario = {
	name: 'queue mode: lead operations: Create and Get run on the workers; at most one token request per worker process, for runs starting together and after expiries with both workers busy',
	async run({ rest, webhooks, sim, credential, figures, tokenRequests }) {
		// Answered when taken: a queue-mode caller that waits for the run's items can wait forever
		// (WebhookAnswer). Each run's outcome is read from n8n's executions instead.
		const { workflow, webhookPath } = createAndGetLeadsWorkflow(
			credential,
			{
				partnerOrganizationId: sim.defaultPartnerOrganization.id,
				agentId: sim.defaultAgents[0]!.id,
			},
			'onReceived',
		);
		const created = await rest.createWorkflow(workflow);
		await rest.activateWorkflow(created);
		const leadsBefore = sim.control.listLeads().length;
		sim.control.resetStats();
		const { runTogether, runs } = runsTogether({
			rest,
			webhooks,
			workflowId: created.id,
			webhookPath,
			body: { leads: INPUT_LEADS },
			serviceStats: () => sim.control.stats(),
		});
		tokenRequests.reset();
		await runTogether(2);
		await runTogether(2);
		await runTogether(2);
		const sixRuns = tokenFigures(sim, tokenRequests);
		figures.set('token requests for 6 runs over 2 workers', sixRuns.text);

		sim.control.expireTokens();
		sim.control.resetStats();
		tokenRequests.reset();
		await runTogether(4);
		const afterExpiry = tokenFigures(sim, tokenRequests);
		figures.set('token requests after an expiry, 4 runs at once on 2 workers', afterExpiry.text);

		// Runs 15 ms apart: a run that reads the credential after another run's new token came
		// but before n8n saved it (about 10-80 ms later) asked for a token of its own before each
		// process kept its token (issue 34; measured on 2.41.1 then: one worker asked twice in
		// 3 of 4 such rounds).
		const staggered: TokenFigures[] = [];
		for (let round = 1; round <= 3; round++) {
			sim.control.expireTokens();
			sim.control.resetStats();
			tokenRequests.reset();
			await runTogether(8, 15);
			staggered.push(tokenFigures(sim, tokenRequests));
			figures.set(
				`token requests after an expiry, 8 runs 15 ms apart on 2 workers (round ${round})`,
				staggered.at(-1)!.text,
			);
		}
		// Measured every time before judging any, so a failure reports every figure.
		assertOnePerWorker(sixRuns, '6 runs');
		assertOnePerWorker(afterExpiry, 'after the expiry, 4 runs');
		for (const [index, round] of staggered.entries())
			assertOnePerWorker(round, `after expiry ${index + 2}, 8 runs 15 ms apart`);
		assert.equal(
			sim.control.listLeads().length,
			leadsBefore + runs() * INPUT_LEADS.length,
			'a lead is missing or was created twice',
		);
		await rest.deactivateWorkflow(created);
	},
};
