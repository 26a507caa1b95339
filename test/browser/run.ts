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
import { provideRuntimes } from '../e2e/lib/provision';
import { describe, log, Report } from '../e2e/lib/report';
import { BROWSER_CHECKS } from './checks';
import { Editor, launchChromium } from './editor';
import { E2E_N8N_VERSIONS } from '../e2e/versions';
import { filterByName } from '../e2e/lib/name-filter';

const VERSIONS = (process.env.N8N_BROWSER_VERSIONS || E2E_N8N_VERSIONS.join(','))
	.split(',')
	.map((version) => version.trim())
	.filter(Boolean);
const SHOTS_DIR =
	process.env.N8N_BROWSER_SHOTS || path.join(os.tmpdir(), 'partner-leads-browser-shots');
const HARD_LIMIT_MS = (Number(process.env.N8N_BROWSER_TIMEOUT_MINUTES) || 20) * 60_000;

/** N8N_BROWSER_CHECKS=word,word runs only the checks whose name contains one of the words. */
const CHECKS = filterByName(BROWSER_CHECKS, process.env.N8N_BROWSER_CHECKS);

const report = new Report();

function finish(code: number): never {
	killAllNow();
	console.log(report.summary());
	console.log(`screenshots: ${SHOTS_DIR}`);
	process.exit(code);
}

async function runVersion(version: string, session: DevSession): Promise<void> {
	const browser = await launchChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 1440, height: 1500 } });
		const shots = path.join(SHOTS_DIR, `n8n-${version}`);
		rmSync(shots, { recursive: true, force: true });
		// The documentation shows the current line's editor: its screenshots go to docs/images.
		const docsImages =
			version === E2E_N8N_VERSIONS[0] && process.env.N8N_BROWSER_DOCS_IMAGES !== '0'
				? path.join(REPO_ROOT, 'docs', 'images')
				: undefined;
		const editor = new Editor(page, session.n8n.baseUrl, shots, docsImages);
		const signedIn = await report.check(
			`[n8n ${version}] sign in with the login npm run dev prints`,
			() => editor.signIn(session.login.email, session.login.password),
		);
		for (const check of CHECKS) {
			const name = `[n8n ${version}] ${check.name}`;
			if (!signedIn) {
				report.fail(name, 'not run: sign-in failed');
				continue;
			}
			const passed = await report.check(name, () => check.run(editor, session));
			if (!passed)
				await editor
					.screenshot(`FAILED-${BROWSER_CHECKS.indexOf(check) + 1}`)
					.catch(() => undefined);
		}
	} finally {
		await browser.close().catch(() => undefined);
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
			`[n8n ${version}] sign in with the login npm run dev prints`,
			...CHECKS.map((check) => `[n8n ${version}] ${check.name}`),
		]);
	}
	await buildPackage(5 * 60_000);
	const runtimes = await provideRuntimes(VERSIONS, 35 * 60_000);
	for (const version of VERSIONS) {
		let session: DevSession | undefined;
		try {
			session = await startDevSession({ runtime: runtimes.get(version)!, log });
			await runVersion(version, session);
		} catch (error) {
			report.fail(`[n8n ${version}] browser session`, error);
		} finally {
			if (session) await session.stop();
		}
	}
	clearTimeout(bound);
	finish(report.failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	report.fail('browser test', describe(error));
	finish(1);
});
