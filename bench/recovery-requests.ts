/* eslint-disable @n8n/community-nodes/no-restricted-globals -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Requests one check for missed events costs, by portal size and page cap: the trigger's
 * real recovery (n8n-core, the simulator over loopback), started as after an n8n restart,
 * with nothing missed (the usual case: only the list is read). Each recovered lead adds one
 * request to fetch it when Fetch Full Lead is on.
 *
 *   npx ts-node --transpile-only --prefer-ts-exts bench/recovery-requests.ts
 */
import './env';
import { N8nHarness } from '../test/harness/harness';
import { TriggerHost } from '../test/harness/webhooks';
import { DEFAULT_PERSONALITY, startSimulator } from '../test/simulator';
import { RECOVERY_TIMING } from '../nodes/PartnerLeadsTrigger/recovery/timing';
import { runMain } from './processes';

const SIZES = [1_000, 10_000, 50_000];
const CAPS = [7, 100];

async function requestsPerCheck(cap: number, leads: number): Promise<number> {
	const sim = await startSimulator({
		seed: cap,
		allowInsecureLoopbackWebhooks: true,
		personality: { ...DEFAULT_PERSONALITY, name: `cap-${cap}`, listPageCap: cap },
	});
	try {
		sim.control.seedLeads(leads);
		const harness = new N8nHarness(sim);
		let host = await TriggerHost.start(harness, {
			parameters: { events: ['lead/create', 'lead/update'] },
		});
		await host.activate();
		const persisted = host.persisted();
		await host.close();
		await new Promise((resolve) => setTimeout(resolve, 20));
		sim.control.resetStats();
		host = await TriggerHost.start(harness, persisted);
		await host.activate('init');
		// The check ends when the list requests stop.
		let seen = -1;
		for (let waited = 0; waited < 600; waited++) {
			await new Promise((resolve) => setTimeout(resolve, 500));
			const now = sim.control.stats().byRoute['GET /leads'] ?? 0;
			if (now > 0 && now === seen) break;
			seen = now;
		}
		await host.close();
		if (host.executions.length > 0)
			throw new Error('a check with nothing missed started executions');
		return seen;
	} finally {
		await sim.close();
	}
}

async function main(): Promise<void> {
	Object.assign(RECOVERY_TIMING, { firstCheckDelayMs: 0, settleMs: 0, tickMs: 10 });
	const rows: string[] = ['| Leads in the portal | Page cap 7 | Page cap 100 |', '|---|---|---|'];
	for (const leads of SIZES) {
		const cells: string[] = [];
		for (const cap of CAPS) cells.push(String(await requestsPerCheck(cap, leads)));
		rows.push(`| ${leads.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
	}
	process.stdout.write(
		`List requests per check for missed events (nothing missed):\n${rows.join('\n')}\n`,
	);
}

runMain(main);
