/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * What the documentation promises about the editor, checked in it: the words users type find
 * the nodes, each trigger's panel and the dialog after publishing say what our nodes say, the
 * credential's fields show where each value comes from, and the names the documents take from
 * n8n are this line's. Their screenshots are the ones the documentation shows.
 */
import assert from 'node:assert/strict';

import type { TriggerPanelDefinition } from 'n8n-workflow';

import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import * as pollingPanel from '../../nodes/PartnerLeadsPollingTrigger/panelTexts';
import * as webhookPanel from '../../nodes/PartnerLeadsTrigger/panelTexts';
import type { DevSession } from '../../scripts/dev/session';
import { installedLine, isInstalled, N8N_LINES } from '../docs/n8n-lines';
import { pollingWorkflow } from '../e2e/scenarios/polling';
import type { BrowserCheck } from './checks';
import type { Editor } from './editor';

/** What users type in the node panel (the codex aliases), and the app entry it must find. */
const SEARCHES = ['new lead', 'lead created', 'lead updated', 'deal'];
const APP = 'Partner Referral Service';
const TRIGGER_EVENTS = ['On lead created', 'On lead deleted', 'On lead updated'];

/** Text as the editor shows HTML help: tags gone, line breaks as spaces. */
function plain(html: string): string {
	return html
		.replace(/<br\s*\/?>/g, ' ')
		.replace(/<[^>]+>/g, '')
		.replace(/\s+/g, ' ')
		.trim();
}

function includesText(shown: string, expected: string, what: string): void {
	assert.ok(
		shown.replace(/['’]/g, "'").includes(plain(expected).replace(/['’]/g, "'")),
		`${what} is not shown: "${plain(expected)}" (the panel shows: ${shown.slice(0, 600)})`,
	);
}

/** The open node's panel: our header and activation hint, and our help behind n8n's question. */
async function checkTriggerPanel(editor: Editor, panel: TriggerPanelDefinition): Promise<void> {
	const ndv = editor.page.locator('[data-test-id="ndv"]');
	await ndv.getByText(String(panel.header)).first().waitFor();
	const hint = panel.activationHint as { inactive: string };
	const help = panel.executionsHelp as { inactive: string };
	includesText(await editor.textOf(ndv), String(panel.header), 'the header');
	includesText(await editor.textOf(ndv), hint.inactive, 'the activation hint');
	await ndv.getByText('When will this node trigger my flow?').first().click();
	await ndv.getByText('While building your workflow').first().waitFor();
	includesText(await editor.textOf(ndv), help.inactive, 'the help on test events and publishing');
}

/** Publishes (2.x) or activates (1.x) the open workflow and returns the dialog's text. */
async function publishAndReadDialog(editor: Editor, expected: string): Promise<string> {
	const publish = editor.page.getByRole('button', { name: 'Publish', exact: true });
	if (await publish.count()) {
		await publish.first().click();
		// n8n 2.x may first ask to name the version; its own Publish button confirms
		const confirm = editor.page.locator('.el-dialog, [role="dialog"]').getByRole('button', {
			name: 'Publish',
			exact: true,
		});
		if (await confirm.count().catch(() => 0)) await confirm.first().click();
	} else {
		await editor.testId('workflow-activate-switch').first().click();
	}
	const dialog = editor.page.locator('.el-dialog, [role="dialog"]', { hasText: expected });
	await dialog.first().waitFor({ timeout: 30_000 });
	return await editor.textOf(dialog.first());
}

async function openWorkflowNode(editor: Editor, workflowId: string, node: RegExp): Promise<void> {
	await editor.page.goto(`${editor.baseUrl}/workflow/${workflowId}`);
	const canvasNode = editor.page.locator('[data-test-id="canvas-node"]', { hasText: node });
	await canvasNode.first().waitFor({ timeout: 30_000 });
	await canvasNode.first().dblclick();
}

export const DOCS_CHECKS: BrowserCheck[] = [
	{
		name: 'node panel: "new lead", "lead created", "lead updated" and "deal" find the app, which lists the three trigger events',
		async run(editor) {
			await editor.openNodePanel();
			for (const search of SEARCHES) {
				await editor.searchNodePanel(search);
				await editor.creatorItem(APP).first().waitFor();
				if (search === SEARCHES[0]) await editor.docsScreenshot('node-panel-new-lead');
			}
			await editor.creatorItem(APP).first().click();
			await editor.creatorItem(TRIGGER_EVENTS[0]).waitFor();
			const names = await editor.creatorItemNames();
			for (const event of TRIGGER_EVENTS)
				assert.ok(
					names.includes(event),
					`"${event}" is not listed (it shows: ${names.join(', ')})`,
				);
		},
	},
	{
		name: 'webhook trigger: its panel says how to get a test event and what publishing does; the canvas says what it waits for',
		async run(editor) {
			await editor.openNodeInCreator('new lead', APP);
			await editor.creatorItem(TRIGGER_EVENTS[0]).click();
			await checkTriggerPanel(editor, webhookPanel.TRIGGER_PANEL);
			await editor.docsScreenshot('trigger-panel');
			// Execute step: n8n listens (the dev session's simulator delivers to loopback http)
			await editor.testId('node-execute-button').first().click();
			await editor.page.getByText('Listening for test event').first().waitFor();
			await editor.page.keyboard.press('Escape');
			await editor.page
				.locator('[data-test-id="canvas-node"]')
				.getByText(webhookPanel.EVENT_TRIGGER_DESCRIPTION)
				.first()
				.waitFor();
			await editor.screenshot('trigger-waiting-on-canvas');
		},
	},
	{
		name: 'polling trigger: its panel says how to get a sample and what publishing does, and the dialog after publishing says what the workflow now does',
		async run(editor, session) {
			const created = await session.rest.createWorkflow({
				...pollingWorkflow(session.credential),
				name: 'New and changed leads by polling',
			});
			try {
				await openWorkflowNode(editor, created.id, /Polling Trigger/);
				await checkTriggerPanel(editor, pollingPanel.TRIGGER_PANEL);
				const button = await editor.textOf(editor.testId('node-execute-button').first());
				const help = plain(
					(pollingPanel.TRIGGER_PANEL.executionsHelp as { inactive: string }).inactive,
				);
				assert.ok(
					help.includes(`'${button}'`),
					`the help names the button "${button}" wrongly: ${help}`,
				);
				await editor.page.keyboard.press('Escape');
				const dialog = await publishAndReadDialog(editor, pollingPanel.ACTIVATION_MESSAGE);
				await editor.docsScreenshot('publish-dialog');
				includesText(dialog, pollingPanel.ACTIVATION_MESSAGE, 'the message after publishing');
			} finally {
				await session.rest.deactivateWorkflow(created).catch(() => undefined);
			}
		},
	},
	{
		name: 'credential: home page, Credentials, Create credential, Partner Referral Service API: each field shows where its value comes from',
		async run(editor) {
			const { page } = editor;
			await page.goto(`${editor.baseUrl}/home/workflows`);
			// the house icon: n8n 2.x's Personal page, 1.x's Overview; both have the tab and the button
			await page
				.locator('[data-test-id="menu-item"][href="/home"], a[href="/home"]')
				.first()
				.click();
			await page
				.getByRole('link', { name: 'Credentials', exact: true })
				.or(page.getByRole('tab', { name: 'Credentials', exact: true }))
				.first()
				.click();
			await page.getByRole('button', { name: 'Create credential', exact: true }).first().click();
			await page.keyboard.type('Partner Referral');
			await page
				.getByRole('option', { name: /Partner Referral Service API/ })
				.first()
				.click();
			await page
				.getByRole('button', { name: /continue/i })
				.first()
				.click();
			const modal = editor.testId('editCredential-modal');
			const credential = new PartnerLeadsApi();
			const hinted = credential.properties.filter(
				(property) => property.hint && property.name !== 'devBaseUrl',
			);
			await modal.getByText(String(hinted[0]?.hint)).first().waitFor();
			const shown = await editor.textOf(modal);
			await editor.docsScreenshot('credential-hints');
			for (const property of hinted)
				includesText(shown, String(property.hint), `the hint of ${property.displayName}`);
			await page.keyboard.press('Escape');
		},
	},
];

/** Run without a browser page, but per line: what the documents take from n8n is this line's. */
export function documentedNamesProblems(version: string): string[] {
	if (!isInstalled(version)) return [`n8n ${version} is not installed`];
	const installed = installedLine(version);
	const recorded = N8N_LINES[version];
	if (!recorded) return [`test/docs/n8n-lines-recorded.json has no entry for n8n ${version}`];
	return [
		...recorded.texts
			.filter((text) => !installed.texts.has(text))
			.map((text) => `"${text}" is not in n8n ${version}'s editor`),
		...recorded.variables
			.filter((variable) => !installed.variables.has(variable))
			.map((variable) => `n8n ${version} does not read ${variable}`),
	];
}

export const DOCUMENTED_NAMES_CHECK: BrowserCheck = {
	name: 'documentation: the menus, buttons and variables test/docs/n8n-lines-recorded.json records for this line are in it',
	async run(_editor: Editor, session: DevSession) {
		const version = session.n8n.version;
		assert.deepEqual(documentedNamesProblems(version), []);
	},
};
