/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The workflows in examples/, imported into the real n8n as a user imports them (our credential
 * chosen) and run: the form creates a lead, the sync workflow forwards updated leads (and a lead
 * deleted before it could be fetched), the reconciliation upserts recently changed leads, the
 * partner is credited when a lead becomes Won (and not for a notes change), by the webhook trigger
 * and by the Polling Trigger.
 * "Your system" is a loopback receiver; the schedule is replaced by a webhook to run it now.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

import { importExamples, type ExampleWorkflow } from '../../../scripts/dev/examples';
import { executionError, waitForExecutions } from '../lib/execution-data';
import type { N8nRest, WorkflowSummary } from '../lib/n8n-rest';
import { startReceiver, type ReceivedRequest, type Receiver } from '../lib/receiver';
import { runThroughWebhook } from '../lib/run-workflow';
import { pollUntil, sleep } from '../lib/wait';
import { TRIGGER_NODE_TYPE } from '../workflows';
import type { Scenario, ScenarioContext } from './context';

const FILES = {
	form: 'create-lead-from-form.json',
	sync: 'sync-lead-updates.json',
	polling: 'new-leads-polling.json',
	reconcile: 'reconcile-leads-hourly.json',
	won: 'credit-partner-when-won.json',
	wonPolling: 'credit-partner-when-won-polling.json',
};
const EXTERNAL_CRM = 'https://crm.example.com';

/** Points the examples' HTTP Request nodes at the receiver, fills the simulator's ids, runs the schedule by webhook. */
function adjustFor(context: ScenarioContext, receiver: Receiver, reconcilePath: string) {
	return (example: ExampleWorkflow): ExampleWorkflow => {
		const nodes = example.nodes.map((node) => {
			const parameters = { ...node.parameters };
			if (typeof parameters.url === 'string')
				parameters.url = parameters.url.replace(EXTERNAL_CRM, receiver.url);
			if (parameters.resource === 'lead' && parameters.operation === 'create') {
				parameters.partnerOrganizationId = {
					__rl: true,
					mode: 'id',
					value: context.sim.defaultPartnerOrganization.id,
				};
				parameters.agentId = { __rl: true, mode: 'id', value: context.sim.defaultAgents[0]!.id };
			}
			// n8n's editor gives a webhook node without an id one of its own on import
			if (node.type === TRIGGER_NODE_TYPE && !node.webhookId)
				return { ...node, parameters, webhookId: randomUUID() };
			if (node.type === 'n8n-nodes-base.scheduleTrigger') {
				return {
					...node,
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					webhookId: randomUUID(),
					parameters: { httpMethod: 'POST', path: reconcilePath },
				};
			}
			return { ...node, parameters };
		});
		const connections = { ...example.connections } as Record<string, unknown>;
		return { ...example, nodes, connections };
	};
}

async function successfulRun(
	rest: N8nRest,
	workflow: WorkflowSummary,
	count: number,
	what: string,
): Promise<void> {
	const executions = await waitForExecutions(rest, workflow.id, count, 60_000);
	for (const summary of executions.slice(0, count)) {
		const execution = await rest.getExecution(summary.id);
		assert.equal(
			execution.status,
			'success',
			`${what}: execution ${summary.id} ended ${execution.status}: ${executionError(execution) ?? ''}`,
		);
	}
}

/** A poll every minute (n8n's shortest), plus the time the poll and its execution take. */
const POLL_WAIT_MS = 100_000;

async function receivedWhere(
	receiver: Receiver,
	what: string,
	match: (request: ReceivedRequest) => boolean,
	timeoutMs = 60_000,
): Promise<ReceivedRequest> {
	return await pollUntil(() => receiver.received.find(match), { timeoutMs, what });
}

const bodyOf = (request: ReceivedRequest) =>
	typeof request.body === 'object' && request.body !== null
		? (request.body as Record<string, unknown>)
		: {};

/** The "becomes Won" example: a notes change sends nothing, the change to won one credit. */
async function creditedWhenWon(
	{ sim }: ScenarioContext,
	receiver: Receiver,
	example: ExampleWorkflow,
	leadId: string,
): Promise<void> {
	const trigger = example.nodes.find((node) => node.type.endsWith('.partnerLeadsTrigger')) as
		| { webhookId?: string }
		| undefined;
	assert.ok(trigger?.webhookId, 'the won example has no lead trigger with a webhook id');
	await pollUntil(
		() =>
			sim.control
				.listSubscriptions()
				.some((s) => s.topic === 'lead/update' && s.url.includes(trigger.webhookId!))
				? true
				: undefined,
		{ timeoutMs: 30_000, what: 'the won example to subscribe to lead/update' },
	);
	await sleep(2_000); // its activation listed the portal: the lead's status is known
	const credits = () =>
		receiver.received.filter((request) => request.path.endsWith('/partner-credits'));
	sim.control.portalUpdateLead(leadId, { notes: 'Only the notes' });
	sim.control.portalUpdateLead(leadId, { status: 'won' });
	const credit = await receivedWhere(receiver, 'the won example to send a credit', (request) =>
		request.path.endsWith('/partner-credits'),
	);
	assert.equal(bodyOf(credit).partnerLeadId, leadId, `credit sent: ${JSON.stringify(credit.body)}`);
	assert.equal(
		bodyOf(credit).previousStatus,
		'active',
		`credit sent: ${JSON.stringify(credit.body)}`,
	);
	// one credit per lead: its key in the body and as the Idempotency-Key header
	assert.equal(bodyOf(credit).creditKey, `partner-credit-${leadId}`, 'the credit key');
	assert.equal(credit.headers['idempotency-key'], `partner-credit-${leadId}`, 'Idempotency-Key');
	await sleep(3_000);
	assert.equal(credits().length, 1, `${credits().length} credits sent for one change to won`);
}

/**
 * The "becomes Won" example when the user's system refuses a credit: Send Credit tries 3 times
 * with the same Idempotency-Key, then Credit Not Sent fails the execution naming the lead.
 */
async function refusedCreditFailsNamingTheLead(
	{ rest, sim }: ScenarioContext,
	receiver: Receiver,
	workflow: WorkflowSummary,
	leadId: string,
): Promise<void> {
	const failedBefore = (await rest.listExecutions(workflow.id)).filter(
		(execution) => execution.status === 'error',
	).length;
	sim.control.portalUpdateLead(leadId, { status: 'won' });
	const failed = await pollUntil(
		async () => {
			const errors = (await rest.listExecutions(workflow.id)).filter(
				(execution) => execution.status === 'error',
			);
			return errors.length > failedBefore ? errors[0] : undefined;
		},
		{ timeoutMs: 60_000, what: 'the won example to fail the execution of a refused credit' },
	);
	const message = executionError(await rest.getExecution(failed.id)) ?? '';
	assert.match(message, new RegExp(`credit for lead ${leadId} was not sent`), message);
	const tries = receiver.received.filter(
		(request) =>
			request.path.endsWith('/partner-credits') && bodyOf(request).partnerLeadId === leadId,
	);
	assert.equal(tries.length, 3, `Send Credit tried ${tries.length} times, not 3`);
	for (const request of tries)
		assert.equal(request.headers['idempotency-key'], `partner-credit-${leadId}`, 'Idempotency-Key');
}

export const examplesRun: Scenario = {
	name: 'examples: imported with the credential chosen, and run (form → lead, polling → a new lead, sync incl. a deleted lead, Won by webhook and by polling, reconciliation)',
	async run(context) {
		const { rest, sim, n8n } = context;
		// the user's system refuses the credits of this lead (the Won example's failure path)
		const [refusedLead] = sim.control.seedLeads([{ firstName: 'Refused', status: 'active' }]);
		const receiver = await startReceiver((request) =>
			request.path.endsWith('/partner-credits') && bodyOf(request).partnerLeadId === refusedLead!.id
				? 500
				: 200,
		);
		const reconcilePath = `e2e-reconcile-${randomUUID()}`;
		const active: WorkflowSummary[] = [];
		try {
			const imported = await importExamples(
				rest,
				context.credential,
				adjustFor(context, receiver, reconcilePath),
			);
			const byFile = (file: string) => {
				const found = imported.find(({ example }) => example.file === file);
				assert.ok(found, `examples/${file} was not imported`);
				return found;
			};

			// Form: a submission creates the lead in the portal.
			const form = byFile(FILES.form);
			active.push(await rest.activateWorkflow(form.stored));
			const formNode = form.example.nodes.find(
				(node) => node.type === 'n8n-nodes-base.formTrigger',
			) as { webhookId?: string } | undefined;
			assert.ok(formNode?.webhookId, 'the form example has no form trigger with a webhook id');
			const email = `form-${randomUUID().slice(0, 8)}@example.com`;
			const submission = new FormData();
			for (const [index, value] of [
				'Ada',
				'Form',
				email,
				'Analytical Engines',
				'Referred through the example form',
			].entries())
				submission.append(`field-${index}`, value);
			await pollUntil(
				async () => {
					const response = await fetch(`${n8n.baseUrl}/form/${formNode.webhookId}`, {
						method: 'POST',
						body: submission,
						signal: AbortSignal.timeout(30_000),
					});
					return response.status === 404 ? undefined : response.status;
				},
				{ timeoutMs: 30_000, what: 'the form example to accept a submission' },
			);
			await successfulRun(rest, form.stored, 1, 'the form example');
			const created = sim.control.listLeads().find((lead) => String(lead.email) === email);
			assert.ok(created, `the form example did not create a lead for ${email}`);
			assert.equal(
				created.companyName,
				'Analytical Engines',
				'the form example did not map Company to the lead',
			);

			// Polling: published, it forwards a lead created in the portal at its next poll (every
			// minute), not the leads held at publishing; unpublished before the sync example runs,
			// so the receiver gets the sync example's requests only.
			const polling = byFile(FILES.polling);
			const pollingActive = await rest.activateWorkflow(polling.stored);
			await sleep(2_500); // past the baseline's second (lead times may be whole seconds)
			const polled = sim.control.portalCreateLead({ firstName: 'Polly', lastName: 'Example' });
			const newLead = await receivedWhere(
				receiver,
				'the polling example to forward the lead created in the portal',
				(request) => bodyOf(request).partnerLeadId === polled.id,
				POLL_WAIT_MS,
			);
			assert.equal(
				bodyOf(newLead).change,
				'created',
				`the polling example forwarded ${JSON.stringify(newLead.body)}`,
			);
			assert.ok(
				!receiver.received.some((request) => bodyOf(request).partnerLeadId === created.id),
				'the polling example forwarded the lead the portal held when it was published',
			);
			await rest.deactivateWorkflow(pollingActive);

			// Sync: an update is forwarded with the fetched lead; a lead deleted before the fetch is forwarded as deleted.
			const sync = byFile(FILES.sync);
			active.push(await rest.activateWorkflow(sync.stored));
			const triggerNode = sync.example.nodes.find((node) =>
				node.type.endsWith('.partnerLeadsTrigger'),
			) as { webhookId?: string } | undefined;
			assert.ok(triggerNode?.webhookId, 'the sync example has no lead trigger with a webhook id');
			const ours = (url: string) => url.includes(triggerNode.webhookId!);
			await pollUntil(
				() =>
					sim.control
						.listSubscriptions()
						.some((subscription) => subscription.topic === 'lead/update' && ours(subscription.url))
						? true
						: undefined,
				{
					timeoutMs: 30_000,
					what: 'the sync example to subscribe to lead/update',
				},
			);
			sim.control.portalUpdateLead(created.id, { notes: 'Updated in the portal' });
			const forwarded = await receivedWhere(
				receiver,
				'the sync example to forward the updated lead',
				(request) => bodyOf(request).partnerLeadId === created.id,
			);
			assert.equal(
				bodyOf(forwarded).email,
				email,
				`the sync example forwarded ${JSON.stringify(forwarded.body)}`,
			);
			assert.equal(
				bodyOf(forwarded).deleted,
				false,
				`the sync example forwarded ${JSON.stringify(forwarded.body)} (no deleted: false)`,
			);
			const [doomed] = sim.control.seedLeads(1);
			sim.control.portalUpdateLead(doomed!.id, { notes: 'about to go' });
			sim.control.portalDeleteLead(doomed!.id);
			const gone = await receivedWhere(
				receiver,
				'the sync example to forward a lead deleted before it was fetched',
				(request) => bodyOf(request).partnerLeadId === doomed!.id,
			);
			assert.equal(
				bodyOf(gone).deleted,
				true,
				`the deleted lead was forwarded as ${JSON.stringify(gone.body)}`,
			);
			assert.equal(
				bodyOf(gone).email,
				'',
				`the deleted lead was forwarded as ${JSON.stringify(gone.body)}`,
			);

			// Credit when Won: only the status change to won is sent, with the status before it.
			const won = byFile(FILES.won);
			const wonActive = await rest.activateWorkflow(won.stored);
			active.push(wonActive);
			await creditedWhenWon(context, receiver, won.example, created.id);
			await refusedCreditFailsNamingTheLead(context, receiver, wonActive, refusedLead!.id);
			await rest.deactivateWorkflow(wonActive);

			// Credit when Won, by polling: the lead polled above (status active when this workflow is
			// published) becomes won; the next poll sends one credit, with the status before it.
			const wonPolling = byFile(FILES.wonPolling);
			active.push(await rest.activateWorkflow(wonPolling.stored));
			await sleep(2_500); // past the baseline's second (lead times may be whole seconds)
			sim.control.portalUpdateLead(polled.id, { notes: 'Only the notes' });
			sim.control.portalUpdateLead(polled.id, { status: 'won' });
			const polledCredit = await receivedWhere(
				receiver,
				'the polling won example to send a credit',
				(request) =>
					request.path.endsWith('/partner-credits') && bodyOf(request).partnerLeadId === polled.id,
				POLL_WAIT_MS,
			);
			assert.equal(
				bodyOf(polledCredit).previousStatus,
				'active',
				`the polling won example sent ${JSON.stringify(polledCredit.body)}`,
			);

			// Reconciliation: every lead changed in the last two hours is upserted.
			const reconcile = byFile(FILES.reconcile);
			active.push(await rest.activateWorkflow(reconcile.stored));
			const before = receiver.received.length;
			const response = await runThroughWebhook(rest, reconcilePath, {});
			assert.equal(response.status, 200, `the reconciliation webhook answered ${response.status}`);
			await successfulRun(rest, reconcile.stored, 1, 'the reconciliation example');
			const upserts = receiver.received.slice(before).filter((request) => request.method === 'PUT');
			for (const lead of sim.control.listLeads()) {
				assert.ok(
					upserts.some((request) => request.path.endsWith(`/${lead.id}`)),
					`the reconciliation did not upsert lead ${lead.id}`,
				);
			}
		} finally {
			for (const workflow of active) await rest.deactivateWorkflow(workflow).catch(() => undefined);
			await receiver.close();
		}
	},
};
