/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The browser test: n8n's editor in Debian's chromium (playwright-core, no browser download),
 * on the same session `npm run dev` gives a user.
 *
 *   npm run test:browser                              n8n 2.41.1 and 1.123.81
 *   N8N_BROWSER_VERSIONS=2.41.1 npm run test:browser  one version
 *
 * Screenshots go to N8N_BROWSER_SHOTS (default: <tmp>/partner-leads-browser-shots), printed at
 * the end. Exits non-zero when a check failed; every wait is bounded, and so is the whole run.
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startDevSession, type DevSession } from '../../scripts/dev/session';
import { buildPackage, REPO_ROOT } from '../e2e/lib/build-package';
import { killAllNow } from '../e2e/lib/processes';
import { readManifest } from '../e2e/lib/extension';
import { provideRegistry, startNpmRegistry, type NpmRegistry } from '../e2e/lib/npm-registry';
import { provideRuntimes, type N8nRuntime } from '../e2e/lib/provision';
import { describe, log, Report } from '../e2e/lib/report';
import { BROWSER_CHECKS } from './checks';
import {
	COMMUNITY_NODES_CHECKS,
	startCommunityNodesSession,
	type CommunityNodesSession,
} from './community-nodes';
import { Editor, launchChromium } from './editor';
import { E2E_N8N_VERSIONS } from '../e2e/versions';
import { filterByName } from '../e2e/lib/name-filter';

const VERSIONS = (process.env.N8N_BROWSER_VERSIONS || E2E_N8N_VERSIONS.join(','))
	.split(',')
	.map((version) => version.trim())
	.filter(Boolean);
const SHOTS_DIR =
	process.env.N8N_BROWSER_SHOTS || path.join(os.tmpdir(), 'partner-leads-browser-shots');
const HARD_LIMIT_MS = (Number(process.env.N8N_BROWSER_TIMEOUT_MINUTES) || 30) * 60_000;

/** N8N_BROWSER_CHECKS=word,word runs only the checks whose name contains one of the words. */
const CHECKS = filterByName(BROWSER_CHECKS, process.env.N8N_BROWSER_CHECKS);
const COMMUNITY_CHECKS = filterByName(COMMUNITY_NODES_CHECKS, process.env.N8N_BROWSER_CHECKS);

function readManifestVersion(): string {
	return (readManifest(REPO_ROOT) as { version?: string }).version ?? '0.0.0';
}

const report = new Report();

function finish(code: number): never {
	killAllNow();
	console.log(report.summary());
	console.log(`screenshots: ${SHOTS_DIR}`);
	process.exit(code);
}

/** One browser for the checks of one n8n; a check that fails leaves a FAILED-<n> screenshot. */
async function runChecks(
	version: string,
	target: { baseUrl: string; login: { email: string; password: string }; shots: string },
	checks: Array<{ name: string; run(editor: Editor): Promise<void> }>,
	docsImages?: string,
): Promise<void> {
	const browser = await launchChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 1440, height: 1500 } });
		const shots = path.join(SHOTS_DIR, target.shots);
		rmSync(shots, { recursive: true, force: true });
		const editor = new Editor(page, target.baseUrl, shots, docsImages);
		const signedIn = await report.check(`[n8n ${version}] ${signInName(target.shots)}`, () =>
			editor.signIn(target.login.email, target.login.password),
		);
		let failedBefore = false;
		for (const [index, check] of checks.entries()) {
			const name = `[n8n ${version}] ${check.name}`;
			if (!signedIn) {
				report.fail(name, 'not run: sign-in failed');
				continue;
			}
			// the community-nodes checks build on each other: after a failure the rest cannot run
			if (failedBefore && check.name.startsWith(COMMUNITY)) {
				report.fail(name, 'not run: an earlier Community nodes check failed');
				continue;
			}
			const passed = await report.check(name, () => check.run(editor));
			if (!passed) {
				failedBefore = true;
				await editor.screenshot(`FAILED-${index + 1}`).catch(() => undefined);
			}
		}
	} finally {
		await browser.close().catch(() => undefined);
	}
}

const COMMUNITY = 'Community nodes:';

function signInName(shots: string): string {
	return shots.endsWith('-community-nodes')
		? 'sign in as the owner of an n8n without the package'
		: 'sign in with the login npm run dev prints';
}

/** The checks on the dev session: the package copied in as `npm run dev` does. */
async function runDevSession(version: string, runtime: N8nRuntime): Promise<void> {
	let session: DevSession | undefined;
	try {
		session = await startDevSession({ runtime, log });
		const started = session;
		// The documentation shows the current line's editor: its screenshots go to docs/images.
		const docsImages =
			version === E2E_N8N_VERSIONS[0] && process.env.N8N_BROWSER_DOCS_IMAGES !== '0'
				? path.join(REPO_ROOT, 'docs', 'images')
				: undefined;
		await runChecks(
			version,
			{ baseUrl: started.n8n.baseUrl, login: started.login, shots: `n8n-${version}` },
			CHECKS.map((check) => ({ name: check.name, run: (editor) => check.run(editor, started) })),
			docsImages,
		);
	} catch (error) {
		report.fail(`[n8n ${version}] browser session`, error);
	} finally {
		if (session) await session.stop();
	}
}

/** The checks on an n8n without the package, which installs it from the registry. */
async function runCommunityNodes(
	version: string,
	runtime: N8nRuntime,
	registry: NpmRegistry,
): Promise<void> {
	let session: CommunityNodesSession | undefined;
	try {
		session = await startCommunityNodesSession(runtime, registry);
		const started = session;
		await runChecks(
			version,
			{
				baseUrl: started.n8n.baseUrl,
				login: started.login,
				shots: `n8n-${version}-community-nodes`,
			},
			COMMUNITY_CHECKS.map((check) => ({
				name: check.name,
				run: (editor) => check.run(editor, started),
			})),
		);
	} catch (error) {
		report.fail(`[n8n ${version}] community nodes session`, error);
	} finally {
		if (session) await session.stop();
	}
}

async function main(): Promise<void> {
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => finish(130));
	const bound = setTimeout(() => {
		report.fail('browser test', `hard time bound of ${HARD_LIMIT_MS / 60_000} minutes reached`);
		finish(1);
	}, HARD_LIMIT_MS);
	for (const version of VERSIONS) {
		report.plan([
			...(CHECKS.length
				? [`[n8n ${version}] ${signInName('')}`, ...CHECKS.map((c) => `[n8n ${version}] ${c.name}`)]
				: []),
			...(COMMUNITY_CHECKS.length
				? [
						`[n8n ${version}] ${signInName('-community-nodes')}`,
						...COMMUNITY_CHECKS.map((c) => `[n8n ${version}] ${c.name}`),
					]
				: []),
		]);
	}
	await buildPackage(5 * 60_000);
	const runtimes = await provideRuntimes(VERSIONS, 35 * 60_000);
	// One registry for the whole run, the package's version published once; each line's update
	// publishes the next patch version (so the second line installs the first line's update).
	let registry: NpmRegistry | undefined;
	try {
		if (COMMUNITY_CHECKS.length) {
			const verdaccio = await provideRegistry(15 * 60_000);
			registry = await startNpmRegistry({
				node: runtimes.get(VERSIONS[0]!)!.node,
				verdaccioBin: verdaccio,
				startupTimeoutMs: 60_000,
			});
			await registry.publishPackage(readManifestVersion());
		}
		for (const version of VERSIONS) {
			const runtime = runtimes.get(version)!;
			if (CHECKS.length) await runDevSession(version, runtime);
			if (registry) await runCommunityNodes(version, runtime, registry);
		}
	} catch (error) {
		report.fail('browser test: the npm registry', error);
	} finally {
		await registry?.stop();
	}
	clearTimeout(bound);
	finish(report.failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	report.fail('browser test', describe(error));
	finish(1);
});
