/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What users do on day 200, in the real app at n8n's defaults: unpublish during an import and
 * publish again; the portal's admin revokes the API key and the user saves a new one into the
 * credential; a subscription deleted at the service. Each time, what the service was answered
 * 200 for, and what changed in the portal meanwhile, runs once.
 */
import assert from 'node:assert/strict';

import type { Simulator } from '../../simulator/types';
import { LEAD_TOPIC_COUNT, signedDelivery, subscriptionsOf } from '../lib/lead-trigger';
import type { N8nRest, WorkflowSummary } from '../lib/n8n-rest';
import { startReceiver, type Receiver, type ReceivedRequest } from '../lib/receiver';
import { CREDENTIAL_TYPE, credentialData } from '../lib/service';
import { pollUntil, sleep } from '../lib/wait';
import { leadTriggerWorkflow, NODE, type CredentialRef } from '../workflows';
import { deliverBriefly, postTo } from './burst';
import type { Scenario, ScenarioContext } from './context';

/** What the trigger's workflow reports to "your system": the event and the run's mark. */
interface Reported {
	id: string;
	topic: string;
	timestamp: string;
	recoveryReason?: string;
}

const reportedOf = (request: ReceivedRequest) => request.body as Reported;

/** The trigger, then Report posting each run's event and mark to your system. */
function reportingWorkflow(credential: CredentialRef, receiverUrl: string) {
	const { workflow, webhookId } = leadTriggerWorkflow(credential);
	workflow.nodes.push(
		postTo(
			'Report',
			`${receiverUrl}/report`,
			'JSON.stringify({ ...$json.event, recoveryReason: $json.recoveryReason })',
			220,
		),
	);
	workflow.connections = {
		[NODE.trigger]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] },
	};
	return { workflow, webhookId };
}

async function publishReporting(
	context: ScenarioContext,
	receiver: Receiver,
): Promise<{ created: WorkflowSummary; webhookId: string }> {
	const { rest, sim, credential } = context;
	const { workflow, webhookId } = reportingWorkflow(credential, receiver.url);
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	await subscribed(sim, webhookId, () => true, 30_000);
	return { created, webhookId };
}

/** Waits until the trigger holds a subscription per topic that `owned` accepts. */
async function subscribed(
	sim: Simulator,
	webhookId: string,
	owned: (clientId: string) => boolean,
	timeoutMs: number,
): Promise<void> {
	await pollUntil(
		() => {
			const own = subscriptionsOf(sim, webhookId).filter((entry) => owned(entry.ownerClientId));
			return own.length >= LEAD_TOPIC_COUNT ? true : undefined;
		},
		{ timeoutMs, intervalMs: 1_000, what: 'the trigger to be subscribed' },
	);
}

const eventOf = (reported: Reported) => `${reported.topic} ${reported.id} ${reported.timestamp}`;

/** How often each event was reported. */
function timesReported(receiver: Receiver): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of receiver.received) {
		const event = eventOf(reportedOf(request));
		counts.set(event, (counts.get(event) ?? 0) + 1);
	}
	return counts;
}

/** Waits until your system received nothing for 3 s (at most 60 s). */
async function quiet(receiver: Receiver): Promise<void> {
	let seen = -1;
	const deadline = Date.now() + 60_000;
	while (seen !== receiver.received.length && Date.now() < deadline) {
		seen = receiver.received.length;
		await sleep(3_000);
	}
}

/** Leads a partner imports, sent 50 at a time; your system (a CRM) answers each in 0.4 s. */
const IMPORT = { leads: 150, inFlight: 50, answerMs: 400, unpublishAfter: 50 };

/** The import as the service sends it: signed lead/create deliveries, each retried briefly. */
async function sendImport(sim: Simulator, webhookId: string): Promise<Set<string>> {
	const creates = subscriptionsOf(sim, webhookId).find((entry) => entry.topic === 'lead/create');
	assert.ok(creates, 'no lead/create subscription');
	const leadIds = sim.control.seedLeads(IMPORT.leads).map((lead) => lead.id);
	const timestamp = new Date().toISOString();
	const accepted = new Set<string>();
	let next = 0;
	const sender = async () => {
		while (next < leadIds.length) {
			const leadId = leadIds[next++];
			const statuses = await deliverBriefly(
				async () => (await signedDelivery(creates, leadId, timestamp)).status,
			);
			if (statuses.includes(200)) accepted.add(`lead/create ${leadId} ${timestamp}`);
		}
	};
	await Promise.all(Array.from({ length: IMPORT.inFlight }, sender));
	return accepted;
}

export const unpublishedDuringImport: Scenario = {
	name: 'unpublished during an import and published again: every event answered 200 runs once, those not run before marked publishedAgain',
	async run(context) {
		const { n8n, rest, sim } = context;
		const receiver = await startReceiver(() => 200, { delayMs: IMPORT.answerMs });
		try {
			const { created, webhookId } = await publishReporting(context, receiver);
			const importing = sendImport(sim, webhookId);
			await pollUntil(
				() => (receiver.received.length >= IMPORT.unpublishAfter ? true : undefined),
				{ timeoutMs: 120_000, what: `${IMPORT.unpublishAfter} leads to be reported` },
			);
			const unpublishedAt = Date.now();
			await rest.deactivateWorkflow(created);
			const unpublishMs = Date.now() - unpublishedAt;
			const ranBefore = receiver.received.length;
			// the rest of the import meets the unpublished workflow's 404 and is given up; 2.x
			// unpublishes in the background: the executions under way end a moment later
			const accepted = await importing;
			await quiet(receiver);
			const ranWhileUnpublished = receiver.received.length - ranBefore;

			await rest.activateWorkflow(await rest.getWorkflow(created.id));
			const publishedAt = Date.now();
			await pollUntil(
				() =>
					[...accepted].every((event) => timesReported(receiver).has(event)) ? true : undefined,
				{ timeoutMs: 180_000, intervalMs: 500, what: 'every event answered 200 to be reported' },
			).catch(() => undefined);
			const allRanS = (Date.now() - publishedAt) / 1000;
			await sleep(3_000); // time for a second run to show
			const counts = timesReported(receiver);
			const lost = [...accepted].filter((event) => !counts.has(event));
			const twice = [...counts].filter(([, count]) => count > 1);
			const atPublish = receiver.received.slice(ranBefore + ranWhileUnpublished).map(reportedOf);
			const unmarked = atPublish.filter((run) => run.recoveryReason !== 'publishedAgain');
			process.stdout.write(
				`      n8n ${n8n.version}: ${IMPORT.leads} deliveries ${IMPORT.inFlight} at a time, ${accepted.size} answered 200; ` +
					`unpublished after ${ranBefore} ran (the unpublish took ${(unpublishMs / 1000).toFixed(1)} s), ${ranWhileUnpublished} more while unpublished; ` +
					`${atPublish.length} ran at the publish within ${allRanS.toFixed(0)} s; lost ${lost.length}, twice ${twice.length}\n`,
			);
			assert.deepEqual(lost, [], 'events answered 200 that never ran');
			assert.deepEqual(twice, [], 'events run twice');
			assert.deepEqual(unmarked, [], 'runs at the publish not marked publishedAgain');
			assert.ok(atPublish.length > 0, 'nothing was left to run at the publish');
			await rest.deactivateWorkflow(await rest.getWorkflow(created.id));
		} finally {
			await receiver.close();
		}
	},
};

/** The user saves a new API key into the stored credential, as the editor's Save does. */
async function saveNewKey(context: ScenarioContext): Promise<string> {
	const { rest, sim, credential } = context;
	const key = sim.control.createKey({ selfServe: sim.defaultKey.selfServe });
	const data = credentialData(sim, { clientId: key.clientId, clientSecret: key.clientSecret });
	await rest.updateCredential(credential.id, credential.name, CREDENTIAL_TYPE, data);
	return key.clientId;
}

/** Where n8n shows the refused key: a failed execution on 2.x, the activation error on 1.x. */
async function refusalShown(rest: N8nRest, workflowId: string, major: number): Promise<string> {
	return await pollUntil(
		async () => {
			if (major >= 2) {
				const failed = (await rest.listExecutions(workflowId)).filter(
					(execution) => execution.status === 'error',
				);
				return failed.length > 0 ? `a failed execution (${failed.length})` : undefined;
			}
			const error = await rest.activationError(workflowId);
			return error ? `the activation error: ${error}` : undefined;
		},
		{ timeoutMs: 8 * 60_000, intervalMs: 5_000, what: 'n8n to show that the key is refused' },
	);
}

export const newKeySaved: Scenario = {
	// its own n8n and service: it revokes the key every other scenario's credential holds
	ownN8n: true,
	name: 'the API key revoked, a new one saved into the credential: n8n shows the refusal, the trigger subscribes again with the new key and the leads changed meanwhile run once, no republish',
	async run(context) {
		const { n8n, rest, sim } = context;
		const receiver = await startReceiver();
		try {
			const { created, webhookId } = await publishReporting(context, receiver);
			const revokedAt = Date.now();
			sim.control.revokeKey(sim.defaultKey.clientId);
			sim.control.expireTokens();
			const meanwhile = [1, 2, 3].map((index) =>
				sim.control.portalCreateLead({ firstName: `Meanwhile${index}`, lastName: 'E2e' }),
			);
			const shown = await refusalShown(rest, created.id, Number(n8n.version.split('.')[0]));
			const shownAfterMs = Date.now() - revokedAt;
			// the user takes a moment: on n8n 1.x a few of n8n's own tries fail first
			await sleep(10_000);
			const savedAt = Date.now();
			const newKey = await saveNewKey(context);
			await subscribed(sim, webhookId, (clientId) => clientId === newKey, 10 * 60_000);
			const subscribedAfterMs = Date.now() - savedAt;
			const ids = new Set(meanwhile.map((lead) => lead.id));
			await pollUntil(
				() =>
					[...ids].every((id) => receiver.received.some((request) => reportedOf(request).id === id))
						? true
						: undefined,
				{ timeoutMs: 2 * 60_000, what: 'the leads created meanwhile to run' },
			);
			const ranAfterMs = Date.now() - savedAt;
			await sleep(3_000);
			const twice = [...timesReported(receiver)].filter(([, count]) => count > 1);
			process.stdout.write(
				`      n8n ${n8n.version}: key revoked; n8n showed ${shown.split(':')[0]} after ${(shownAfterMs / 1000).toFixed(0)} s; ` +
					`new key saved: subscribed again after ${(subscribedAfterMs / 1000).toFixed(0)} s, the ${ids.size} leads created meanwhile ran after ${(ranAfterMs / 1000).toFixed(0)} s, twice ${twice.length}\n`,
			);
			assert.deepEqual(twice, [], 'events run twice');
			assert.equal(await rest.activationError(created.id), undefined, 'the activation error left');
			await rest.deactivateWorkflow(await rest.getWorkflow(created.id));
		} finally {
			await receiver.close();
		}
	},
};

export const subscriptionDeleted: Scenario = {
	ownN8n: true,
	name: 'a subscription deleted at the service: the trigger subscribes again and the change made meanwhile runs once, marked missed',
	async run(context) {
		const { n8n, rest, sim } = context;
		const receiver = await startReceiver();
		try {
			const lead = sim.control.portalCreateLead({ firstName: 'Kept', lastName: 'E2e' });
			const { created, webhookId } = await publishReporting(context, receiver);
			await sim.control.waitForDeliveries(30_000);
			const update = subscriptionsOf(sim, webhookId).find((entry) => entry.topic === 'lead/update');
			assert.ok(update, 'no lead/update subscription');
			const deletedAt = Date.now();
			sim.control.portalDeleteSubscription(update.id);
			sim.control.portalUpdateLead(lead.id, { value: 77 });
			await subscribed(sim, webhookId, () => true, 10 * 60_000);
			const backAfterMs = Date.now() - deletedAt;
			const runs = () =>
				receiver.received
					.map(reportedOf)
					.filter((run) => run.id === lead.id && run.topic === 'lead/update');
			await pollUntil(() => (runs().length > 0 ? true : undefined), {
				timeoutMs: 2 * 60_000,
				what: 'the missed update to run',
			});
			const ranAfterMs = Date.now() - deletedAt;
			await sleep(3_000);
			process.stdout.write(
				`      n8n ${n8n.version}: a subscription deleted at the service: back after ${(backAfterMs / 1000).toFixed(0)} s, the update made meanwhile ran after ${(ranAfterMs / 1000).toFixed(0)} s (${runs().length} run, marked ${runs()[0]?.recoveryReason})\n`,
			);
			assert.equal(runs().length, 1, 'runs of the missed update');
			assert.equal(runs()[0].recoveryReason, 'missed');
			await rest.deactivateWorkflow(await rest.getWorkflow(created.id));
		} finally {
			await receiver.close();
		}
	},
};
