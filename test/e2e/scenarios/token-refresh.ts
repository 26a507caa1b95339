/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Scenario 5: after every issued token expired, the next run still succeeds: n8n refreshes the
 * token through our credential (preAuthentication + the hidden expirable field), exactly once.
 */
import assert from 'node:assert/strict';

import type { RequestStats } from '../../simulator/types';
import { INPUT_LEADS, deployLeadsWorkflow } from './create-and-get';
import type { Scenario } from './context';

/** Answers 401 on the API routes (not the token endpoint): requests made with a refused token. */
function refusedApiRequests(stats: RequestStats): number {
	let refused = 0;
	for (const [route, statuses] of Object.entries(stats.statusesByRoute)) {
		if (!route.includes('/oauth/token')) refused += statuses[401] ?? 0;
	}
	return refused;
}

export const tokenRefresh: Scenario = {
	name: 'token refresh: token kept across runs; after expiry the next run succeeds with one new token request',
	async run({ rest, sim, credential }) {
		const { workflow, run } = await deployLeadsWorkflow(rest, sim, credential);
		await run();
		const afterFirst = sim.control.stats();
		assert.ok(afterFirst.tokensIssued >= 1, 'no token was ever issued');

		// A second run reuses the token n8n stored with the credential.
		await run();
		const afterSecond = sim.control.stats();
		assert.equal(
			afterSecond.tokenRequests,
			afterFirst.tokenRequests,
			'a run with a valid stored token requested a new one',
		);

		sim.control.expireTokens();
		const third = await run();
		assert.equal(
			third.fetched.length,
			INPUT_LEADS.length,
			'the run after expiry did not get all leads back',
		);
		const afterExpiry = sim.control.stats();
		const newTokenRequests = afterExpiry.tokenRequests - afterSecond.tokenRequests;
		assert.equal(
			newTokenRequests,
			1,
			`expected exactly one token request after expiry, saw ${newTokenRequests}`,
		);
		assert.ok(
			refusedApiRequests(afterExpiry) > refusedApiRequests(afterSecond),
			'no request was refused with 401 after expiry: the refresh path was not exercised',
		);

		const executions = await rest.listExecutions(third.workflowId);
		assert.equal(executions.length, 3, `expected 3 executions, found ${executions.length}`);
		const failed = executions.filter((execution) => execution.status !== 'success');
		assert.deepEqual(
			failed.map((execution) => `${execution.id}: ${execution.status}`),
			[],
			'failed executions',
		);
		await rest.deactivateWorkflow(workflow);
	},
};
