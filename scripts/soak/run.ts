/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * `npm run soak` — a bounded fault soak (see soak.ts). Duration: SOAK_SECONDS or
 * `--seconds N` (default 120); seed: SOAK_SEED or `--seed N`; token expiry period:
 * SOAK_TOKEN_EXPIRY_SECONDS. The portal also deletes older leads during the run (see
 * SoakOptions.portalDeletesOlderLeads); SOAK_PORTAL_DELETES=0 or `--no-portal-deletes` turns that off.
 * Prints the figures, writes them to bench-results/soak.json, and exits 1 when a figure
 * that must be 0 is not.
 */
import './env';

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function option(flag: string, envName: string, fallback: number): number {
	const index = process.argv.indexOf(flag);
	const raw = index >= 0 ? process.argv[index + 1] : process.env[envName];
	if (raw === undefined || raw === '') return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value <= 0) {
		console.error(`${flag} / ${envName} must be a positive number (got "${raw}")`);
		process.exit(2);
	}
	return value;
}

function line(label: string, value: unknown, expectZero = false): string {
	const mark = expectZero ? (value === 0 ? '  ok (expected 0)' : '  FAIL (expected 0)') : '';
	return `  ${label.padEnd(46)} ${String(value)}${mark}`;
}

async function main(): Promise<void> {
	const seconds = option('--seconds', 'SOAK_SECONDS', 120);
	const seed = option('--seed', 'SOAK_SEED', 1);
	const tokenExpiryEverySeconds = option('--token-expiry', 'SOAK_TOKEN_EXPIRY_SECONDS', 5);
	const portalDeletesOlderLeads =
		!process.argv.includes('--no-portal-deletes') && process.env.SOAK_PORTAL_DELETES !== '0';
	// Loaded after env.ts has pointed n8n-core at a temporary folder.
	const { runSoak } = await import('./soak');
	console.log(
		`Soak: ${seconds} s of pushing with every fault injected (seed ${seed}, tokens expired every ${tokenExpiryEverySeconds} s${portalDeletesOlderLeads ? ', portal deleting older leads' : ''})`,
	);
	const { figures, failures } = await runSoak({
		seconds,
		seed,
		tokenExpiryEverySeconds,
		portalDeletesOlderLeads,
		log: (text) => console.log(`  … ${text}`),
	});

	const { items, leads, events, subscriptions, auth } = figures;
	console.log('');
	console.log(
		`Soak figures (${figures.durationSeconds} s in all, ${figures.pushSeconds} s pushing)`,
	);
	console.log(line('items pushed', items.pushed));
	console.log(line('  created / updated', `${items.created} / ${items.updated}`));
	console.log(line('  failed with a clear error', items.failedWithClearError));
	for (const [kind, count] of Object.entries(items.failuresByKind).sort((a, b) => b[1] - a[1]))
		console.log(line(`    ${kind}`, count));
	console.log(line('  failed without a clear error', items.failedWithoutClearError, true));
	for (const [workflow, count] of Object.entries(items.byWorkflow))
		console.log(line(`  ${workflow}: runs / items`, `${count.runs} / ${count.items}`));
	console.log(line('runs crashed', items.runsCrashed, true));
	console.log(
		line('leads the simulator holds (from pushes)', `${leads.held} (${leads.heldFromPushes})`),
	);
	console.log(line('duplicates created (same e-mail twice)', leads.duplicatesCreated, true));
	if (leads.duplicateEmails.length > 0)
		for (const entry of leads.duplicateEmails) console.log(`    ${entry}`);
	console.log(line('events emitted', `${events.emitted} ${JSON.stringify(events.emittedByTopic)}`));
	console.log(
		line(
			'delivery attempts (duplicates sent)',
			`${events.deliveryAttempts} (${events.duplicateDeliveriesSent})`,
		),
	);
	console.log(line('deliveries abandoned by the service', events.abandonedByService));
	console.log(line('executions started', events.executionsStarted));
	console.log(line('events lost', events.lost, true));
	if (events.lostSamples.length > 0) console.log(`    e.g. ${events.lostSamples.join(', ')}`);
	console.log(line('events run twice', events.runTwice, true));
	console.log(line('executions without an emitted event', events.executedWithoutEvent, true));
	console.log(line('trigger answers', JSON.stringify(events.triggerAnswers)));
	console.log(line('trigger crashes (500)', events.triggerCrashes, true));
	console.log(line('activation attempts', subscriptions.activationAttempts));
	console.log(line('deactivation error', subscriptions.deactivationError ?? 'none'));
	console.log(
		line('orphan subscriptions after deactivation', subscriptions.orphansAfterDeactivation, true),
	);
	console.log(
		line(
			'token requests / issued / forced expiries',
			`${auth.tokenRequests} / ${auth.tokensIssued} / ${auth.tokenExpiriesForced}`,
		),
	);

	const file = path.join(process.cwd(), 'bench-results', 'soak.json');
	mkdirSync(path.dirname(file), { recursive: true });
	writeFileSync(
		file,
		`${JSON.stringify({ ...figures, failures, finishedAt: new Date().toISOString() }, null, 2)}\n`,
	);
	console.log(`\nWritten to ${path.relative(process.cwd(), file)}`);
	if (failures.length > 0) {
		console.error(`\nSoak FAILED: ${failures.join('; ')}`);
		process.exitCode = 1;
	} else {
		console.log('\nSoak passed: every figure expected to be 0 is 0');
	}
}

main()
	.catch((error: unknown) => {
		console.error('Soak could not run:', error);
		process.exitCode = 1;
	})
	// n8n-core keeps sockets and timers alive after the run; the figures are written by now.
	.finally(() => process.exit());
