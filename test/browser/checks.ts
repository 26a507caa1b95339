/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What a user sees in n8n's editor, checked in a real browser against the dev session
 * (real n8n, the simulator, the credential). Each check leaves a screenshot.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import type { DevSession } from '../../scripts/dev/session';
import { REPO_ROOT } from '../e2e/lib/build-package';
import { credentialData, CREDENTIAL_TYPE } from '../e2e/lib/service';
import { executionError, nodeOutput, nodesRun, waitForExecutions } from '../e2e/lib/execution-data';
import type { WorkflowSummary } from '../e2e/lib/n8n-rest';
import { pollUntil } from '../e2e/lib/wait';
import { pollingWorkflow } from '../e2e/scenarios/polling';
import type { SchemaField } from '../simulator/types';
import { DOCS_CHECKS, DOCUMENTED_NAMES_CHECK } from './docs-checks';
import type { Editor } from './editor';
import type { Locator } from 'playwright-core';
import { schemaWorkflow } from '../e2e/workflows';

export interface BrowserCheck {
	name: string;
	run(editor: Editor, session: DevSession): Promise<void>;
}

/** A node of a workflow as n8n's REST API gives it back. */
interface StoredNode {
	name: string;
	webhookId?: string;
	credentials?: Record<string, { id?: string }>;
}

/** Node parameters of their own on Create, not mapper fields (spec 5.8). */
const NODE_PARAMETER_FIELDS = ['partnerOrganizationId', 'agentId'];

function expectedCreateFields(schema: SchemaField[]) {
	return schema
		.filter((field) => field.creatable && !NODE_PARAMETER_FIELDS.includes(field.fieldId))
		.map((field) => ({ id: field.fieldId, label: field.label, required: field.required }));
}

function picklistLabels(schema: SchemaField[], fieldId: string): string[] {
	const field = schema.find((entry) => entry.fieldId === fieldId);
	return (field?.picklistValues ?? []).map((option) => option.label);
}

/** Adds the node with one of its actions, as from the node panel, and chooses the credential. */
async function addAction(editor: Editor, action: string, credential: string): Promise<void> {
	await editor.openNodeInCreator('Partner Referral', 'Partner Referral Service');
	await editor.page.getByText(/^Actions \(\d+\)$/).click();
	await editor.creatorItem(action).click();
	await editor.chooseCredential(credential);
}

async function openCreateLead(editor: Editor, credential: string): Promise<void> {
	await addAction(editor, 'Create a lead', credential);
	await editor.testId('mapping-fields-container').waitFor();
}

/** A field the portal adds while the user has the node open: required, with its own options. */
const ADDED_FIELD: SchemaField = {
	fieldId: 'region',
	label: 'Sales region',
	type: 'picklist',
	required: true,
	creatable: true,
	updateable: true,
	picklistValues: [
		{ value: 'emea', label: 'EMEA' },
		{ value: 'amer', label: 'Americas' },
		{ value: 'apac', label: 'Asia Pacific' },
	],
};

/** What the Quick start's user types into the form example's form (First name … Notes). */
const FORM_ENTRY = [
	'Ada',
	'Quickstart',
	'ada.quickstart@example.com',
	'Analytical Engines',
	'Referred from the README quick start',
];

/** The Quick start's step 4: the ⋯ menu next to the workflow's name imports a file (both lines' words). */
async function checkImportMenu(editor: Editor): Promise<void> {
	await editor.testId('workflow-menu').first().click();
	const item = (name: string) => editor.page.getByText(name, { exact: true }).first();
	if (await item('Import from File...').count()) {
		await item('Import from File...').waitFor(); // n8n 1.x
	} else {
		await item('Import').hover(); // n8n 2.x: Import > From file
		await item('From file').waitFor();
	}
	await editor.screenshot('quick-start-import-menu');
	await editor.page.keyboard.press('Escape');
	await editor.page.keyboard.press('Escape');
}

/** Requests that change something on the service (all but GETs and token requests). */
function writeRequests(session: DevSession): number {
	return Object.entries(session.sim.control.stats().byRoute)
		.filter(([route]) => !route.startsWith('GET ') && !route.includes('token'))
		.reduce((sum, [, count]) => sum + count, 0);
}

export const BROWSER_CHECKS: BrowserCheck[] = [
	{
		name: 'Quick start: the imported form example, run from the editor, creates the first lead',
		async run(editor, session) {
			const example = session.workflows.find(
				(workflow) => workflow.file === 'create-lead-from-form.json',
			);
			assert.ok(example, 'npm run dev did not import the form example');
			await editor.page.goto(`${editor.baseUrl}/workflow/${example.id}`);
			// "Execute workflow" opens the form trigger's test form in a new tab
			const formTab = editor.page.context().waitForEvent('page', { timeout: 60_000 });
			// Awaited below; handled now too, so that a click slower than the wait (a loaded
			// machine) fails this check instead of ending the run with an unhandled rejection.
			formTab.catch(() => undefined);
			await editor.testId('execute-workflow-button').first().click();
			const form = await formTab;
			await form.waitForLoadState();
			for (const [index, value] of FORM_ENTRY.entries())
				await form.locator(`[name="field-${index}"]`).fill(value);
			await form.locator('#submit-btn').click();
			const email = FORM_ENTRY[2]!;
			const lead = await pollUntil(
				() => session.sim.control.listLeads().find((entry) => String(entry.email) === email),
				{
					timeoutMs: 30_000,
					what: `the form example to create a lead for ${email}`,
				},
			);
			await form.close();
			await editor.screenshot('quick-start-form-example-ran');
			await checkImportMenu(editor);
			assert.equal(
				lead.firstName,
				FORM_ENTRY[0],
				'the lead does not have the first name typed into the form',
			);
			assert.equal(
				lead.companyName,
				FORM_ENTRY[3],
				'the lead does not have the company typed into the form',
			);
		},
	},
	DOCS_CHECKS[0],
	{
		name: 'Create a lead: the credential is chosen, Lead Fields lists the schema with required marks and picklist options',
		async run(editor, session) {
			await openCreateLead(editor, session.credential.name);
			const credential = await editor
				.testId('node-credentials-select')
				.locator('input')
				.inputValue();
			assert.equal(
				credential,
				session.credential.name,
				'the node did not choose the only credential of its type',
			);
			const schema = session.sim.control.getSchema();
			const shown = await editor.mapperFields();
			await editor.testId('node-parameters').evaluate((element) => element.scrollTo(0, 0));
			await editor.docsScreenshot('editor-lead-fields');
			assert.deepEqual(
				shown,
				expectedCreateFields(schema),
				'Lead Fields does not show the schema’s creatable fields with their required marks',
			);
			assert.deepEqual(
				await editor.optionsOf('platform'),
				picklistLabels(schema, 'platform'),
				'the Platform picklist options differ from the schema',
			);
		},
	},
	{
		name: 'Create a lead: after the schema changes, Refresh Field List shows the new field, its required mark and options',
		async run(editor, session) {
			const original = session.sim.control.getSchema();
			await openCreateLead(editor, session.credential.name);
			const changed = [
				...structuredClone(original).map((field) =>
					field.fieldId === 'phone' ? { ...field, required: true } : field,
				),
				ADDED_FIELD,
			];
			session.sim.control.setSchema(changed);
			try {
				await editor.refreshFieldList(ADDED_FIELD.label);
				const shown = await editor.mapperFields();
				await editor.page
					.locator('[data-test-id="mapping-fields-container"] label', {
						hasText: ADDED_FIELD.label,
					})
					.first()
					.scrollIntoViewIfNeeded();
				await editor.screenshot('editor-lead-fields-refreshed');
				assert.deepEqual(
					shown,
					expectedCreateFields(changed),
					'after Refresh Field List, Lead Fields does not match the changed schema',
				);
				assert.deepEqual(
					await editor.optionsOf('region'),
					picklistLabels(changed, 'region'),
					'the new picklist’s options differ from the schema',
				);
			} finally {
				session.sim.control.setSchema(original);
			}
		},
	},
	{
		name: 'Get a lead: the From List search shows the portal’s leads',
		async run(editor, session) {
			await addAction(editor, 'Get a lead', session.credential.name);
			await editor.testId('resource-locator-leadId').locator('[data-test-id="rlc-input"]').click();
			await editor.testId('rlc-item').first().waitFor();
			const items = (await editor.testId('rlc-item').allTextContents()).map((text) => text.trim());
			await editor.screenshot('editor-lead-list-search');
			for (const lead of session.sim.control.listLeads()) {
				assert.ok(
					items.some((item) => item.includes(String(lead.email))),
					`the lead list does not show ${String(lead.email)} (it shows: ${items.join('; ')})`,
				);
			}
		},
	},
	{
		name: 'credential: n8n’s test shows success for the simulator’s key',
		async run(editor, session) {
			await editor.page.goto(`${editor.baseUrl}/home/credentials/${session.credential.id}`);
			await editor.testId('credentials-config-container-test-success').waitFor();
			await editor.screenshot('credential-test-success');
		},
	},
	...DOCS_CHECKS.slice(1),
	{
		name: 'The webhook Won example imported twice into one n8n: each copy gets a webhook of its own, and both publish',
		async run(editor, session) {
			const copies: WorkflowSummary[] = [];
			try {
				for (let copy = 1; copy <= 2; copy++) {
					await editor.importFromFile(
						path.join(REPO_ROOT, 'examples', 'credit-partner-when-won.json'),
					);
					const trigger = editor.canvasNode('Lead Becomes Won');
					await trigger.waitFor({ timeout: 30_000 });
					await trigger.dblclick();
					await editor.chooseCredential(session.credential.name);
					await editor.closeNodePanel();
					await editor.page.keyboard.press('ControlOrMeta+s');
					const workflowId = await pollUntil(
						() => {
							const id = /\/workflow\/([^/?#]+)/.exec(editor.page.url())?.[1];
							return id && id !== 'new' ? id : undefined;
						},
						{ timeoutMs: 30_000, what: `copy ${copy} of the example to be saved` },
					);
					// n8n 2.x shows the new id in the address before its save has landed
					copies.push(
						await pollUntil(async () => await session.rest.getWorkflow(workflowId), {
							timeoutMs: 30_000,
							what: `copy ${copy} of the example in n8n's database`,
						}),
					);
				}
				await editor.screenshot('won-example-imported-twice');
				const webhookIds = await Promise.all(
					copies.map(async (copy) => {
						const stored = JSON.parse(await session.rest.workflowJson(copy.id)) as {
							data?: { nodes?: StoredNode[] };
							nodes?: StoredNode[];
						};
						const nodes = stored.data?.nodes ?? stored.nodes ?? [];
						const trigger = nodes.find((node) => node.name === 'Lead Becomes Won');
						assert.equal(
							trigger?.credentials?.[CREDENTIAL_TYPE]?.id,
							session.credential.id,
							`copy ${copy.id} does not use the credential chosen`,
						);
						return trigger?.webhookId;
					}),
				);
				assert.ok(
					webhookIds.every(Boolean) && webhookIds[0] !== webhookIds[1],
					`the two copies' webhook ids: ${webhookIds.join(', ')}`,
				);
				// published both: each copy subscribes at the service with its own address
				for (const [index, copy] of copies.entries())
					copies[index] = await session.rest.activateWorkflow(copy);
				for (const webhookId of webhookIds)
					await pollUntil(
						() =>
							session.sim.control
								.listSubscriptions()
								.some((s) => s.topic === 'lead/update' && s.url.includes(webhookId!))
								? true
								: undefined,
						{ timeoutMs: 30_000, what: `the copy with webhook ${webhookId} to subscribe` },
					);
			} finally {
				for (const copy of copies)
					await session.rest.deactivateWorkflow(copy).catch(() => undefined);
			}
		},
	},
	{
		name: 'credential: with a wrong secret the test shows our message (and not the secret)',
		async run(editor, session) {
			// Made here, last: with two credentials of the type, n8n would preselect the newer one.
			const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
			const wrong = await session.rest.createCredential(
				'Partner Referral Service (wrong secret)',
				CREDENTIAL_TYPE,
				credentialData(session.sim, { clientSecret: wrongSecret }),
			);
			await editor.page.goto(`${editor.baseUrl}/home/credentials/${wrong.id}`);
			// n8n tests the credential when it opens; its error banner has the Retry (test again) button
			const retry = editor.testId('editCredential-modal').getByRole('button', { name: 'Retry' });
			await retry.waitFor();
			await retry.click();
			await editor.testId('editCredential-modal').getByText('More details').click();
			await editor
				.testId('editCredential-modal')
				.getByText(/'Client ID' or 'Client Secret'/)
				.first()
				.waitFor();
			const text = (await editor.testId('editCredential-modal').innerText()).replace(/\s+/g, ' ');
			await editor.screenshot('credential-test-wrong-secret');
			assert.match(
				text,
				/client id|client secret/i,
				`the credential dialog does not name the client id/secret: ${text.slice(0, 400)}`,
			);
			// what happened, and where to fix it
			assert.match(
				text,
				/Developer \/ API Keys/,
				`the credential dialog does not say where to copy the key from: ${text.slice(0, 400)}`,
			);
			assert.ok(!text.includes(wrongSecret), 'the credential dialog shows the secret');
		},
	},
	{
		name: "AI Agent example: the node is the agent's tool on the canvas; its Create Lead tool shows the fields the model fills with $fromAI",
		async run(editor, session) {
			const example = session.workflows.find(
				(workflow) => workflow.file === 'agent-lead-intake.json',
			);
			assert.ok(example, 'npm run dev did not import the agent example');
			await editor.page.goto(`${editor.baseUrl}/workflow/${example.id}`);
			const tool = editor.page.locator('[data-test-id="canvas-node"]', {
				hasText: /^\s*Create Lead/,
			});
			await tool.first().waitFor({ timeout: 30_000 });
			for (const name of ['AI Agent', 'Create Lead', 'Get Lead', 'Update Lead', 'Get Lead Schema'])
				assert.ok(
					(await editor.page.locator('[data-test-id="canvas-node"]', { hasText: name }).count()) >
						0,
					`the canvas does not show "${name}"`,
				);
			await editor.docsScreenshot('agent-example-canvas');
			await tool.first().dblclick();
			await editor.testId('mapping-fields-container').waitFor({ timeout: 30_000 });
			await editor.docsScreenshot('agent-tool-create-lead');
			const text = await editor.testId('node-parameters').innerText();
			assert.match(
				text,
				/fromAI|defined automatically by the model/i,
				'Lead Fields shows no $fromAI field',
			);
		},
	},
	{
		name: 'Polling Trigger: Fetch Test Event shows the newest lead as the workflow gets it, and changes nothing on the service',
		async run(editor, session) {
			const newest = session.sim.control.portalCreateLead({
				firstName: `Sample${randomBytes(3).toString('hex')}`,
				lastName: 'Newest',
			});
			const created = await session.rest.createWorkflow(pollingWorkflow(session.credential));
			await editor.page.goto(`${editor.baseUrl}/workflow/${created.id}`);
			const node = editor.page.locator('[data-test-id="canvas-node"]', {
				hasText: /Polling Trigger/,
			});
			await node.first().waitFor({ timeout: 30_000 });
			await node.first().dblclick();
			const writesBefore = writeRequests(session);
			await editor.testId('node-execute-button').first().click();
			const output = editor.testId('output-panel');
			await output.getByText(String(newest.firstName)).first().waitFor({ timeout: 60_000 });
			await editor.docsScreenshot('polling-trigger-fetch-test-event');
			const text = await output.innerText();
			assert.ok(text.includes(newest.id), `the sample is not the newest lead ${newest.id}`);
			assert.match(text, /polled/, 'the sample is not marked polled');
			assert.equal(writeRequests(session), writesBefore, 'Fetch Test Event wrote to the service');
		},
	},
	{
		name: "Fields to Watch: the list is the schema's fields (custom ones and Status); Fetch Test Event shows the changes",
		async run(editor, session) {
			const [lead] = session.sim.control.seedLeads([
				{ firstName: `Watched${randomBytes(3).toString('hex')}`, status: 'open' },
			]);
			const parameters = {
				events: ['lead/update'],
				fetchFullLead: true,
				watchedFields: ['status'],
			};
			const created = await session.rest.createWorkflow(
				pollingWorkflow(session.credential, parameters),
			);
			session.sim.control.portalUpdateLead(lead!.id, { status: 'won' });
			await editor.page.goto(`${editor.baseUrl}/workflow/${created.id}`);
			const node = editor.page.locator('[data-test-id="canvas-node"]', {
				hasText: /Polling Trigger/,
			});
			await node.first().waitFor({ timeout: 30_000 });
			await node.first().dblclick();
			const fields = await editor.optionsOf('watchedFields');
			await editor.docsScreenshot('fields-to-watch-list');
			for (const label of ['Status', 'Industry', 'Platform', 'Deal value'])
				assert.ok(
					fields.includes(label),
					`Fields to Watch does not offer "${label}": ${fields.join(', ')}`,
				);
			await editor.testId('node-execute-button').first().click();
			const output = editor.testId('output-panel');
			await output.getByText('changedFields').first().waitFor({ timeout: 60_000 });
			await editor.screenshot('fields-to-watch-test-event');
			const text = await output.innerText();
			assert.ok(text.includes(lead!.id), `the sample is not the changed lead ${lead!.id}`);
			assert.match(text, /changes/, 'the sample shows no changes');
			assert.match(text, /won/, 'the sample does not show the new status');
		},
	},
	{
		name: "Only When Changed To: Status lists the values the portal's leads carry",
		async run(editor, session) {
			const tag = randomBytes(3).toString('hex');
			const statuses = [`won${tag}`, `open${tag}`];
			session.sim.control.seedLeads(statuses.map((status) => ({ status })));
			const parameters = {
				events: ['lead/update'],
				fetchFullLead: true,
				watchedFields: ['status'],
				changedTo: { conditions: [{ field: 'status', values: [] }] },
			};
			const created = await session.rest.createWorkflow(
				pollingWorkflow(session.credential, parameters),
			);
			await editor.page.goto(`${editor.baseUrl}/workflow/${created.id}`);
			const node = editor.page.locator('[data-test-id="canvas-node"]', {
				hasText: /Polling Trigger/,
			});
			await node.first().waitFor({ timeout: 30_000 });
			await node.first().dblclick();
			// the list loads when it opens (it reads the portal's leads): n8n 2.x may close the
			// dropdown while the options arrive, so it is opened again, a bounded number of times
			let values: string[] = [];
			for (let attempt = 1; attempt <= 3 && !statuses.every((s) => values.includes(s)); attempt++)
				values = await editor.optionsOf('values').catch(() => []);
			await editor.screenshot('only-when-changed-to-status-values');
			for (const status of statuses)
				assert.ok(
					values.includes(status),
					`Only When Changed To does not offer the status "${status}": ${values.join(', ')}`,
				);
		},
	},
	{
		name: 'The polling Won example: imported from its file, the credential chosen, run in the editor up to the credit it would send',
		async run(editor, session) {
			await editor.importFromFile(
				path.join(REPO_ROOT, 'examples', 'credit-partner-when-won-polling.json'),
			);
			const trigger = editor.canvasNode('Lead Becomes Won');
			const sendCredit = editor.canvasNode('Send Credit');
			await trigger.waitFor({ timeout: 30_000 });
			await sendCredit.waitFor({ timeout: 30_000 });
			await editor.screenshot('won-polling-example-imported');
			// the file carries a placeholder credential: the user chooses theirs (the Setup note's step 1)
			await trigger.dblclick();
			await editor.chooseCredential(session.credential.name);
			const otherValues = editor.page.locator('[data-test-id="parameter-input-otherValues"] input');
			assert.equal(
				await otherValues.first().inputValue(),
				'won',
				'Only When Changed To does not hold the example’s "won"',
			);
			await editor.screenshot('won-polling-example-trigger');
			await editor.closeNodePanel();

			// a lead becomes won on the portal: the newest change, the one the editor's run shows
			const [seeded] = session.sim.control.seedLeads([
				{ firstName: `Won${randomBytes(3).toString('hex')}`, status: 'open' },
			]);
			const lead = session.sim.control.portalUpdateLead(seeded!.id, { status: 'won' });
			const writesBefore = writeRequests(session);
			// "Execute step" on Partner Credit runs the trigger and the credit, not Send Credit
			// (its address is the user's CRM, never called from a test). Both lines save the new
			// workflow when it runs: nothing to save before.
			await editor.canvasNode('Partner Credit').dblclick();
			await editor.testId('node-execute-button').first().click();
			const output = editor.testId('output-panel');
			await output.getByText(lead.id).first().waitFor({ timeout: 60_000 });
			await editor.screenshot('won-polling-example-ran');
			const text = await output.innerText();
			assert.match(text, /partnerLeadId/, 'Partner Credit shows no partnerLeadId');
			assert.match(text, /previousStatus/, 'the credit has no previousStatus');
			assert.ok(
				text.includes(String(lead.partnerOrganizationId)),
				'the credit does not name the lead’s partner organization',
			);
			assert.equal(
				writeRequests(session),
				writesBefore,
				'running the example wrote to the service',
			);

			// the canvas: Partner Credit ran, Send Credit did not
			await editor.closeNodePanel();
			await editor
				.canvasNode('Partner Credit')
				.locator('[data-test-id="canvas-node-status-success"]')
				.waitFor({ timeout: 10_000 });
			await editor.screenshot('won-polling-example-not-sent');
			// a run's marks only: the settings' marks (Send Credit retries on fail) share the prefix
			const settingsMarks = [
				'retry-on-fail',
				'execute-once',
				'continue-on-error',
				'always-output-data',
			]
				.map((mark) => `:not([data-test-id="canvas-node-status-${mark}"])`)
				.join('');
			assert.equal(
				await sendCredit.locator(`[data-test-id^="canvas-node-status"]${settingsMarks}`).count(),
				0,
				'the canvas shows Send Credit as run',
			);
			// the run as n8n kept it: the credit for the won lead, and no Send Credit at all
			const workflowId = /\/workflow\/([^/?#]+)/.exec(editor.page.url())?.[1];
			assert.ok(
				workflowId && workflowId !== 'new',
				`running did not save the workflow: ${editor.page.url()}`,
			);
			const [execution] = await waitForExecutions(session.rest, workflowId, 1, 30_000);
			const detail = await session.rest.getExecution(execution!.id);
			assert.equal(detail.status, 'success', executionError(detail));
			assert.deepEqual(
				nodeOutput(detail, 'Partner Credit').map((credit) => ({
					partnerLeadId: credit.partnerLeadId,
					partnerOrganizationId: credit.partnerOrganizationId,
					agentId: credit.agentId,
				})),
				[
					{
						partnerLeadId: lead.id,
						partnerOrganizationId: String(lead.partnerOrganizationId),
						agentId: String(lead.agentId),
					},
				],
				'the run credits another lead',
			);
			assert.deepEqual(
				nodesRun(detail).sort(),
				['Lead Becomes Won', 'Partner Credit'],
				'the run went beyond Partner Credit',
			);
		},
	},
	{
		name: 'A new API key saved into the credential in the editor (the old one revoked): a published workflow uses it at its next run, with no republish',
		async run(editor, session) {
			// Last but the names check: it revokes the key the session's credential held until now.
			const { workflow, webhookPath } = schemaWorkflow(session.credential);
			const created = await session.rest.createWorkflow(workflow);
			await session.rest.activateWorkflow(created);
			try {
				const before = await session.rest.callWebhook(webhookPath, {});
				assert.equal(before.status, 200, `the published workflow failed: ${before.text}`);
				const key = session.sim.control.createKey({ selfServe: session.sim.defaultKey.selfServe });
				session.sim.control.revokeKey(session.sim.defaultKey.clientId);
				session.sim.control.expireTokens();

				await editor.page.goto(`${editor.baseUrl}/home/credentials/${session.credential.id}`);
				const modal = editor.testId('editCredential-modal');
				await fieldInput(modal, 'Client ID').fill(key.clientId);
				await fieldInput(modal, 'Client Secret').fill(key.clientSecret);
				await editor.testId('credential-save-button').click();
				// n8n tests the credential as it saves it
				await editor.testId('credentials-config-container-test-success').waitFor();
				await editor.screenshot('credential-new-key-saved');

				const tokensBefore = session.sim.control.stats().tokenRequests;
				const after = await session.rest.callWebhook(webhookPath, {});
				assert.equal(
					after.status,
					200,
					`after the new key, the published workflow failed: ${after.text}`,
				);
				assert.ok(
					session.sim.control.stats().tokenRequests > tokensBefore,
					'the published workflow asked no token for the new key',
				);
			} finally {
				await session.rest.deactivateWorkflow(created).catch(() => undefined);
			}
		},
	},
	DOCUMENTED_NAMES_CHECK,
];

/** The input of a credential field: n8n puts each in a form of its own, its label first. */
function fieldInput(modal: Locator, label: string): Locator {
	return modal
		.locator('[data-test-id="credential-connection-parameter"]')
		.filter({ hasText: new RegExp(`^\\s*${label}\\b`) })
		.locator('input')
		.first();
}
