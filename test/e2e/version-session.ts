/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Everything for one n8n version: simulator, n8n with our package (and the loader probe),
 * owner + login, a stored credential, then the scenarios. Whatever happens, n8n and the
 * simulator are stopped before this returns.
 */
import assert from 'node:assert/strict';

import type { Simulator } from '../simulator/types';
import { REPO_ROOT } from './lib/build-package';
import { communityPackagesFolder, installPackageInto } from './lib/extension';
import { startN8n, type N8nInstance } from './lib/n8n-instance';
import { N8nRest } from './lib/n8n-rest';
import { PROBE_CREDENTIAL_TYPE, PROBE_NODE_TYPE, writeProbePackage } from './lib/probe-package';
import type { N8nRuntime } from './lib/provision';
import { describe, log, type Report } from './lib/report';
import { CREDENTIAL_TYPE, credentialData, startService } from './lib/service';
import { withTimeout } from './lib/wait';
import type { Scenario, ScenarioContext } from './scenarios/context';
import { scenariosFor } from './scenarios/context';

/** Log lines worth reporting: about our package, or about loading community packages at all. */
const WATCH_WORDS = [
	'n8n-nodes-partner-leads',
	'partnerleads',
	'failed to load',
	'skipping package',
	'unknown credential',
	'e2e-probe',
];

/** `own`: the session of the scenarios that run in an n8n of their own (Scenario.ownN8n). */
const label = (version: string, own: boolean) => `[n8n ${version}${own ? ', own n8n' : ''}]`;
const setupCheck = (version: string, own: boolean) =>
	`${label(version, own)} setup: owner, login, loader probe, credential`;

/** The names of the checks `runVersion` records, for the report's plan (none: nothing to run). */
export function plannedChecks(version: string, scenarios: Scenario[], own = false): string[] {
	const applying = scenariosFor(version, scenarios);
	if (applying.length === 0) return [];
	return [
		setupCheck(version, own),
		...applying.map((scenario) => `${label(version, own)} ${scenario.name}`),
	];
}

async function setUp(
	n8n: N8nInstance,
	sim: Simulator,
	report: Report,
	own: boolean,
): Promise<ScenarioContext | undefined> {
	const rest = new N8nRest(n8n.baseUrl);
	let credential: ScenarioContext['credential'] | undefined;
	const ok = await report.check(setupCheck(n8n.version, own), async () => {
		await rest.setUpOwnerAndLogIn('E2E');
		const nodes = await rest.nodeTypeNames();
		assert.ok(
			nodes.includes(PROBE_NODE_TYPE),
			`n8n did not load the probe package from its community packages folder (${PROBE_NODE_TYPE})`,
		);
		assert.ok(
			(await rest.credentialTypeNames()).includes(PROBE_CREDENTIAL_TYPE),
			'n8n did not load the probe credential',
		);
		const name = 'e2e partner leads';
		const stored = await rest.createCredential(name, CREDENTIAL_TYPE, credentialData(sim));
		credential = { id: stored.id, name };
	});
	return ok && credential ? { n8n, rest, sim, credential } : undefined;
}

export async function runVersion(
	runtime: N8nRuntime,
	allScenarios: Scenario[],
	report: Report,
	own = false,
	/** ends when the line's n8n of their own are gone: scenarios that measure health wait for it */
	othersEnded: Promise<void> = Promise.resolve(),
): Promise<void> {
	const scenarios = scenariosFor(runtime.version, allScenarios);
	if (scenarios.length === 0) return;
	const prefix = label(runtime.version, own);
	const notRun = (reason: string, options: { includingSetup: boolean }) => {
		if (options.includingSetup) report.fail(setupCheck(runtime.version, own), `not run: ${reason}`);
		for (const scenario of scenarios)
			report.fail(`${prefix} ${scenario.name}`, `not run: ${reason}`);
	};
	const failedBefore = report.failed;
	let sim: Simulator | undefined;
	let n8n: N8nInstance | undefined;
	try {
		try {
			sim = await startService();
		} catch (error) {
			return notRun(`the simulator did not start: ${describe(error)}`, { includingSetup: true });
		}
		try {
			n8n = await startN8n({
				runtime,
				startupTimeoutMs: 180_000,
				watchWords: WATCH_WORDS,
				prepareUserFolder: (userFolder) => {
					installPackageInto(userFolder, REPO_ROOT);
					writeProbePackage(communityPackagesFolder(userFolder));
				},
			});
		} catch (error) {
			report.fail(`${prefix} n8n starts with the package installed`, error);
			return notRun('n8n did not start', { includingSetup: true });
		}
		const context = await setUp(n8n, sim, report, own);
		if (!context) return notRun('setup failed', { includingSetup: false });
		for (const scenario of scenarios) {
			if (scenario.measuresHealth) await othersEnded;
			await report.check(`${prefix} ${scenario.name}`, () => scenario.run(context));
		}
	} finally {
		if (n8n) {
			const lines = n8n.notableLogLines().filter((line) => !line.includes('e2e-probe'));
			if (lines.length > 0) log(`${prefix} n8n log lines about packages:\n  ${lines.join('\n  ')}`);
			const keepFiles = report.failed > failedBefore || process.env.N8N_E2E_KEEP_FILES === '1';
			await n8n.stop({ keepFiles });
			if (keepFiles) log(`${prefix} kept n8n's folder for inspection: ${n8n.logFile}`);
		}
		if (sim)
			await withTimeout(sim.close(), 10_000, 'closing the simulator').catch((error: unknown) =>
				log(describe(error)),
			);
	}
}
