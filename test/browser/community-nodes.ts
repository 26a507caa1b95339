/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The README's Quick start step 1 as a user does it, in an n8n that does not have the package:
 * Settings > Community nodes, install it from a registry, find it in the node panel, use it;
 * then a newer version in the registry is offered as Update and taken, and the package is
 * uninstalled from its card's menu. The registry is Verdaccio on loopback (test/e2e/lib/npm-registry.ts).
 *
 * A registry other than npm's is a licensed n8n feature on both lines (CommunityPackagesService
 * .getNpmRegistry: N8N_COMMUNITY_PACKAGES_REGISTRY needs `feat:communityNodes:customRegistry`):
 * this n8n runs in n8n's own test mode (`E2E_TESTS=true`), which lets the test turn that one
 * feature on (`PATCH /rest/e2e/feature`); everything else is the install a user gets.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { executionError, nodeOutput, waitForExecutions } from '../e2e/lib/execution-data';
import { NODE } from '../e2e/workflows';
import { httpRequest } from '../e2e/lib/http';
import { activateLeadTrigger, subscriptionsOf } from '../e2e/lib/lead-trigger';
import { startN8n, type N8nInstance } from '../e2e/lib/n8n-instance';
import { N8nRest, type WorkflowSummary } from '../e2e/lib/n8n-rest';
import type { NpmRegistry } from '../e2e/lib/npm-registry';
import type { N8nRuntime } from '../e2e/lib/provision';
import { credentialData, CREDENTIAL_TYPE, startService } from '../e2e/lib/service';
import { pollUntil, withTimeout } from '../e2e/lib/wait';
import type { Simulator, Subscription } from '../simulator/types';
import { readManifest } from '../e2e/lib/extension';
import { REPO_ROOT } from '../e2e/lib/build-package';
import type { Editor } from './editor';

export const PACKAGE_NAME = readManifest(REPO_ROOT).name;
/**
 * The package in a new workflow's node panel: the app (the action node, whose entry lists the
 * webhook trigger's events and the actions) and the Polling Trigger (n8n drops "Trigger").
 */
const PANEL_ENTRIES = ['Partner Referral Service', 'Partner Referral Service Polling'];
const TRIGGER_EVENTS = ['On lead created', 'On lead deleted', 'On lead updated'];
const NODE_TYPES = ['partnerLeads', 'partnerLeadsTrigger', 'partnerLeadsPollingTrigger'];
/** What a workflow's node of the package shows once the package is gone (both lines). */
const AFTER_UNINSTALL = [
	'Install this node to use it',
	`This node is not currently installed. It's part of the ${PACKAGE_NAME} community package.`,
];
const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';
/** An install or an update runs npm pack and npm install: allow for a busy machine. */
const PACKAGE_CHANGE_TIMEOUT_MS = 120_000;

/** An n8n without the package, pointed at the registry, its owner, and the simulator. */
export interface CommunityNodesSession {
	n8n: N8nInstance;
	rest: N8nRest;
	sim: Simulator;
	registry: NpmRegistry;
	login: { email: string; password: string };
	/** filled in as the checks go: what a later check builds on */
	credential?: { id: string; name: string };
	workflow?: { created: WorkflowSummary; webhookId: string; subscriptions: Subscription[] };
	stop(): Promise<void>;
}

/**
 * n8n with no community package, installing from `registry`: N8N_COMMUNITY_PACKAGES_REGISTRY
 * for installs and updates, and npm's own setting in its nodes folder (`.npmrc`) for the
 * update check, which runs `npm outdated` without the variable on both lines.
 * N8N_UNVERIFIED_PACKAGES_ENABLED is `true`, as README's Install asks.
 */
export async function startCommunityNodesSession(
	runtime: N8nRuntime,
	registry: NpmRegistry,
): Promise<CommunityNodesSession> {
	const sim = await startService();
	let n8n: N8nInstance | undefined;
	try {
		n8n = await startN8n({
			runtime,
			startupTimeoutMs: 180_000,
			watchWords: [PACKAGE_NAME, 'community package', 'failed to load'],
			prepareUserFolder: (userFolder) => {
				const nodesFolder = path.join(userFolder, '.n8n', 'nodes');
				mkdirSync(nodesFolder, { recursive: true });
				writeFileSync(path.join(nodesFolder, '.npmrc'), `registry=${registry.url}/\n`);
			},
			environment: {
				E2E_TESTS: 'true',
				N8N_COMMUNITY_PACKAGES_REGISTRY: registry.url,
				// what README's Install asks for while the package is not verified by n8n
				N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
			},
		});
		const feature = await httpRequest(`${n8n.baseUrl}/rest/e2e/feature`, {
			method: 'PATCH',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ feature: CUSTOM_REGISTRY_FEATURE, enabled: true }),
			timeoutMs: 30_000,
		});
		if (feature.status !== 200)
			throw new Error(`n8n did not turn on ${CUSTOM_REGISTRY_FEATURE}: ${feature.status}`);
		const rest = new N8nRest(n8n.baseUrl);
		const login = await rest.setUpOwnerAndLogIn('Community');
		const started = n8n;
		return {
			n8n,
			rest,
			sim,
			registry,
			login,
			stop: async () => {
				await started.stop();
				await withTimeout(sim.close(), 10_000, 'closing the simulator').catch(() => undefined);
			},
		};
	} catch (error) {
		if (n8n) await n8n.stop({ keepFiles: true });
		await withTimeout(sim.close(), 10_000, 'closing the simulator').catch(() => undefined);
		throw error;
	}
}

export interface CommunityNodesCheck {
	name: string;
	run(editor: Editor, session: CommunityNodesSession): Promise<void>;
}

/** Settings > Community nodes, through the editor's menus. */
async function openCommunityNodes(editor: Editor): Promise<void> {
	const { page } = editor;
	// the list, or the first-install button of an instance without community packages
	const shown = editor
		.testId('community-package-card')
		.or(page.getByRole('button', { name: 'Install a community node', exact: true }))
		.first();
	// Settings: the sidebar's gear on 2.x (a menu that opens over the page); 1.x: the user menu's
	// item. A menu that closed as it was clicked is opened once more (bounded: two tries).
	for (let attempt = 1; ; attempt++) {
		await page.goto(`${editor.baseUrl}/home/workflows`);
		const sidebarSettings = page.locator('[data-test-id="main-sidebar-settings"]');
		const userMenu = page.locator('[data-test-id="main-sidebar-user-menu"]');
		await sidebarSettings.or(userMenu).first().waitFor();
		if (await sidebarSettings.count()) {
			await sidebarSettings.first().click();
		} else {
			await userMenu.first().click();
			await page.locator('[data-test-id="user-menu-item-settings"]').first().click();
		}
		await page
			.getByText('Community nodes', { exact: true })
			.filter({ visible: true })
			.first()
			.click();
		const opened = await shown.waitFor({ timeout: 15_000 }).then(
			() => true,
			(error: unknown) => {
				if (attempt >= 2) throw error;
				return false;
			},
		);
		if (opened) return;
	}
}

function packageCard(editor: Editor) {
	return editor.testId('community-package-card').filter({ hasText: PACKAGE_NAME });
}

/** What n8n's REST API says is installed of the package (version, load status). */
async function installedPackage(
	session: CommunityNodesSession,
): Promise<
	{ installedVersion: string; updateAvailable?: string; failedLoading?: boolean } | undefined
> {
	const found = (await session.rest.communityPackages()).find(
		(entry) => entry.packageName === PACKAGE_NAME,
	);
	return (
		found && {
			installedVersion: String(found.installedVersion),
			updateAvailable:
				typeof found.updateAvailable === 'string' ? found.updateAvailable : undefined,
			failedLoading: found.failedLoading === true,
		}
	);
}

/** A lead created in the portal runs the published workflow once more, and only once. */
async function deliveryRunsOnce(session: CommunityNodesSession, before: number): Promise<void> {
	const workflow = session.workflow;
	assert.ok(workflow, 'no published workflow: the install check did not get that far');
	const lead = session.sim.control.portalCreateLead({ firstName: 'Registry', lastName: 'Install' });
	const executions = await waitForExecutions(session.rest, workflow.created.id, before + 1, 60_000);
	await session.sim.control.waitForDeliveries(30_000);
	const latest = await session.rest.getExecution(executions[0]!.id);
	assert.equal(latest.status, 'success', executionError(latest));
	const [item] = nodeOutput(latest, NODE.trigger) as Array<{ event?: { id?: string } }>;
	assert.equal(item?.event?.id, lead.id, 'the newest execution is not the one for the new lead');
	assert.equal(
		await session.rest.executionCount(workflow.created.id),
		before + 1,
		'the delivery ran more than once',
	);
}

async function credentialPasses(session: CommunityNodesSession): Promise<void> {
	const credential = session.credential;
	assert.ok(credential, 'no credential: the install check did not get that far');
	const result = await session.rest.testCredential({
		id: credential.id,
		name: credential.name,
		type: CREDENTIAL_TYPE,
		data: credentialData(session.sim),
	});
	assert.equal(result.status, 'OK', `n8n's credential test: ${result.message}`);
}

export const COMMUNITY_NODES_CHECKS: CommunityNodesCheck[] = [
	{
		name: 'Community nodes: Settings > Community nodes, Install a community node, the package name, the risk checkbox, Install: the package is listed',
		async run(editor, session) {
			const { page } = editor;
			await openCommunityNodes(editor);
			await editor.screenshot('community-nodes-empty');
			await page.getByRole('button', { name: 'Install a community node', exact: true }).click();
			const modal = page.locator('.el-dialog, [role="dialog"]', {
				hasText: 'Install community nodes',
			});
			await modal.getByPlaceholder('e.g. n8n-nodes-chatwork').fill(PACKAGE_NAME);
			await modal
				.getByText('I understand the risks of installing unverified code from a public source.')
				.click();
			await editor.screenshot('community-nodes-install-dialog');
			await modal.getByRole('button', { name: 'Install', exact: true }).click();
			await page
				.getByText('Package installed')
				.first()
				.waitFor({ timeout: PACKAGE_CHANGE_TIMEOUT_MS });
			await packageCard(editor).waitFor();
			// with a package installed, the first-install button gives way to the page's Install
			await page.getByRole('button', { name: 'Install', exact: true }).first().waitFor();
			await editor.screenshot('community-nodes-installed');
			const published = await session.registry.latestVersion(PACKAGE_NAME);
			const installed = await installedPackage(session);
			assert.equal(
				installed?.installedVersion,
				published,
				'n8n did not install the registry’s version',
			);
			assert.notEqual(installed?.failedLoading, true, 'n8n lists the package as failed to load');
		},
	},
	{
		name: 'Community nodes: the node panel finds Partner Referral Service and its three nodes; a credential passes n8n’s test; a published trigger runs a delivery once',
		async run(editor, session) {
			const types = await session.rest.nodeTypeNames();
			for (const type of NODE_TYPES)
				assert.ok(types.includes(`${PACKAGE_NAME}.${type}`), `n8n did not load ${type}`);
			await editor.openNodePanel();
			await editor.searchNodePanel('Partner Referral Service');
			await editor.creatorItem(PANEL_ENTRIES[1]!).first().waitFor();
			const names = await editor.creatorItemNames();
			await editor.screenshot('community-nodes-node-panel');
			for (const name of PANEL_ENTRIES)
				assert.ok(
					names.includes(name),
					`the node panel does not list "${name}": ${names.join(', ')}`,
				);
			await editor.creatorItem(PANEL_ENTRIES[0]!).first().click();
			await editor.creatorItem(TRIGGER_EVENTS[0]!).waitFor();
			const events = await editor.creatorItemNames();
			for (const event of TRIGGER_EVENTS)
				assert.ok(events.includes(event), `the app does not list "${event}": ${events.join(', ')}`);
			await editor.screenshot('community-nodes-node-panel-app');
			await editor.page.keyboard.press('Escape');

			const name = 'Partner Referral Service (installed from the registry)';
			const stored = await session.rest.createCredential(
				name,
				CREDENTIAL_TYPE,
				credentialData(session.sim),
			);
			session.credential = { id: stored.id, name };
			await credentialPasses(session);
			session.workflow = await activateLeadTrigger(session.rest, session.sim, session.credential);
			await deliveryRunsOnce(session, 0);
		},
	},
	{
		name: 'Community nodes: a newer version in the registry: the card offers Update; after it the credential passes, the trigger is still subscribed and a delivery runs once',
		async run(editor, session) {
			const { page } = editor;
			const workflow = session.workflow;
			assert.ok(workflow, 'no published workflow: the install check did not get that far');
			const current = (await installedPackage(session))?.installedVersion;
			assert.ok(current, 'the package is not installed');
			const newer = nextPatch(current);
			await session.registry.publishPackage(newer);
			await openCommunityNodes(editor);
			const card = packageCard(editor);
			const update = card.getByRole('button', { name: 'Update', exact: true });
			await update.waitFor();
			await editor.screenshot('community-nodes-update-offered');
			await update.click();
			const confirm = page.locator('.el-dialog, [role="dialog"]', {
				hasText: 'Update node package',
			});
			await confirm.getByRole('button', { name: 'Confirm update', exact: true }).click();
			// the card shows the version installed (its toast may be gone by the time it is looked for)
			await card.getByText(`v${newer}`).waitFor({ timeout: PACKAGE_CHANGE_TIMEOUT_MS });
			await editor.screenshot('community-nodes-updated');
			assert.equal(
				(await installedPackage(session))?.installedVersion,
				newer,
				'n8n did not install the newer version',
			);

			await credentialPasses(session);
			const subscribed = subscriptionsOf(session.sim, workflow.webhookId)
				.map((s) => s.id)
				.sort();
			assert.deepEqual(
				subscribed,
				workflow.subscriptions.map((s) => s.id).sort(),
				'the published workflow’s subscriptions changed with the update',
			);
			await deliveryRunsOnce(session, await session.rest.executionCount(workflow.created.id));
		},
	},
	{
		name: 'Community nodes: unpublished first, then the card’s menu, Uninstall package: the package is gone, no subscription is left, the workflow shows what docs/troubleshooting.md says',
		async run(editor, session) {
			const { page } = editor;
			const workflow = session.workflow;
			assert.ok(workflow, 'no published workflow: the install check did not get that far');
			// docs/troubleshooting.md, "Uninstalling cleanly": unpublish (deactivate) first
			await session.rest.deactivateWorkflow(workflow.created);
			await pollUntil(
				() => (subscriptionsOf(session.sim, workflow.webhookId).length === 0 ? true : undefined),
				{ timeoutMs: 30_000, what: 'the trigger to delete its subscriptions' },
			);
			await openCommunityNodes(editor);
			const card = packageCard(editor);
			await card.locator('[data-test-id="action-toggle"]').click();
			await page.getByText('Uninstall package', { exact: true }).last().click();
			const confirm = page.locator('.el-dialog, [role="dialog"]', {
				hasText: 'Uninstall node package',
			});
			await confirm.getByRole('button', { name: 'Confirm uninstall', exact: true }).click();
			await page
				.getByText('Package uninstalled')
				.first()
				.waitFor({ timeout: PACKAGE_CHANGE_TIMEOUT_MS });
			await card.waitFor({ state: 'detached' });
			await page.getByRole('button', { name: 'Install a community node', exact: true }).waitFor();
			await editor.screenshot('community-nodes-uninstalled');
			assert.equal(await installedPackage(session), undefined, 'n8n still lists the package');

			// what docs/troubleshooting.md says the workflow shows afterwards, and n8n shows it
			await page.goto(`${editor.baseUrl}/workflow/${workflow.created.id}`);
			const trigger = editor.canvasNode(NODE.trigger);
			await trigger.waitFor({ timeout: 30_000 });
			await editor.screenshot('community-nodes-workflow-after-uninstall');
			await trigger.dblclick();
			const panel = editor.testId('ndv');
			await panel.getByText(AFTER_UNINSTALL[0]!).first().waitFor();
			await editor.screenshot('community-nodes-node-after-uninstall');
			const shown = (await editor.textOf(panel)).replace(/[’']/g, "'");
			const documented = readFileSync(path.join(REPO_ROOT, 'docs', 'troubleshooting.md'), 'utf8');
			for (const text of AFTER_UNINSTALL) {
				assert.ok(documented.includes(text), `docs/troubleshooting.md does not say "${text}"`);
				assert.ok(
					shown.includes(text.replace(/[’']/g, "'")),
					`the node's panel does not show "${text}": ${shown.slice(0, 300)}`,
				);
			}
		},
	},
];

/** 0.1.0 → 0.1.1: the next version a maintainer would publish. */
function nextPatch(version: string): string {
	const [major, minor, patch] = version.split('-')[0]!.split('.').map(Number);
	return `${major}.${minor}.${(patch ?? 0) + 1}`;
}
