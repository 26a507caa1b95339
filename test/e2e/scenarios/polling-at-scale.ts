/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Issue 65's proof in the real app: a portal of 50,000 leads, the service 1.5 s away per list
 * request, List Requests per Minute 60, Poll Times every minute. Once the first read-through
 * (the baseline) has ended, 10 creates, 10 updates and 3 deletes over 6 minutes: each runs once,
 * a create within a Poll Time and a look, an update within the read-through the editor states
 * (`sweepMinutes`), a delete within two, no look over its budget (list requests per look). Run
 * only by name (about 35 minutes): `N8N_E2E_SCENARIOS="at scale"`.
 */
import assert from 'node:assert/strict';

import { POLL_READ_AHEAD_PAGES } from '../../../nodes/PartnerLeadsPollingTrigger/pollListing';
import { sweepMinutes } from '../../../nodes/PartnerLeadsPollingTrigger/sweepPeriod';
import { pollUntil, sleep } from '../lib/wait';
import type { Scenario, ScenarioContext } from './context';
import { DURABLE_POLL_CURSORS } from './polling-durable-cursors';
import { pollingWorkflow, polledEvents } from './polling';

/** the portal's leads and List Requests per Minute (N8N_E2E_AT_SCALE_LEADS, ..._RATE for others) */
const PORTAL = Number(process.env.N8N_E2E_AT_SCALE_LEADS) || 50_000;
const RATE = Number(process.env.N8N_E2E_AT_SCALE_RATE) || 60;
const LATENCY_MS = 1_500;
const CHANGES_OVER_MS = 6 * 60_000;
const MINUTE = 60_000;

/** Seconds without a list request that separate two looks (a look reads for 20 s at most). */
const BETWEEN_LOOKS_S = 15;

/**
 * GET /leads requests per look of the Poll Times, sampled every second until stopped: n8n starts
 * each minute's poll at a second of its own choosing, so clock minutes would split looks; a look
 * is the requests up to a pause of BETWEEN_LOOKS_S (the Poll Times' looks are a minute apart and
 * read for 20 s at most; publishing's look is counted apart).
 */
function listRequestsPerLook(context: ScenarioContext): { stop: () => number[] } {
	const looks: number[] = [];
	let last = context.sim.control.stats().byRoute['GET /leads'] ?? 0;
	let quietS = BETWEEN_LOOKS_S;
	const timer = setInterval(() => {
		const now = context.sim.control.stats().byRoute['GET /leads'] ?? 0;
		if (now > last && quietS >= BETWEEN_LOOKS_S) looks.push(0);
		if (now > last) looks[looks.length - 1] += now - last;
		quietS = now > last ? 0 : quietS + 1;
		last = now;
	}, 1_000);
	return {
		stop: () => {
			clearInterval(timer);
			return looks;
		},
	};
}

async function atScale(context: ScenarioContext, durable: boolean): Promise<void> {
	const { n8n, rest, sim, credential } = context;
	if (durable) await n8n.restart({ environment: DURABLE_POLL_CURSORS });
	const leads = sim.control.seedLeads(PORTAL);
	await sleep(1_500);
	sim.control.portalCreateLead({ firstName: 'Shows', lastName: 'Order' });
	sim.control.setFaults('GET /leads', { latencyMs: LATENCY_MS });
	const workflow = await rest.createWorkflow(
		pollingWorkflow(credential, {
			events: ['lead/create', 'lead/update', 'lead/delete'],
			fetchFullLead: false,
			options: { listRequestsPerMinute: RATE },
		}),
	);
	const listed = () => sim.control.stats().byRoute['GET /leads'] ?? 0;
	const before = listed();
	const activating = Date.now();
	// publishing waits for the activation's look; the Poll Times' looks come after it
	await rest.activateWorkflow(workflow);
	const activationMs = Date.now() - activating;
	const publishingRequests = listed() - before;
	const requests = listRequestsPerLook(context);
	const sweepMs = sweepMinutes(PORTAL, RATE) * MINUTE;
	// the baseline's read-through: every page asked for (each re-reads one lead), then a look more
	const pages = Math.ceil(PORTAL / 99) + POLL_READ_AHEAD_PAGES;
	await pollUntil(() => (listed() - before >= pages ? 1 : undefined), {
		timeoutMs: 3 * sweepMs,
		intervalMs: 1_000,
		what: `the first read-through (${pages} list requests)`,
	});
	const baselineMs = Date.now() - activating;
	await sleep(MINUTE + 30_000);

	const changedAt = new Map<string, number>();
	const ranAt = new Map<string, number>();
	let changesMade = false;
	const notRun = () => [...changedAt.keys()].filter((event) => !ranAt.has(event));
	// the runs are watched while the changes are made: a create runs before the last change
	const watching = pollUntil(
		async () => {
			for (const event of (await polledEvents(rest, workflow.id)).flat())
				if (!ranAt.has(event)) ranAt.set(event, Date.now());
			return changesMade && notRun().length === 0 ? 1 : undefined;
		},
		{
			// a delete is found when the first sweep that no longer lists its lead ends: two sweeps
			timeoutMs: CHANGES_OVER_MS + 2 * sweepMs + 3 * MINUTE,
			intervalMs: 5_000,
			what: 'every change to run',
		},
	).catch((error: unknown) => {
		throw new Error(
			`${String(error)}; not run: ${notRun().join(', ')}; list requests per look: ${requests.stop().join(', ')}`,
		);
	});
	const pick = (at: number) => leads[Math.floor((at * PORTAL) / 23) % PORTAL]!;
	for (let change = 0; change < 23; change++) {
		let event: string;
		if (change % 7 === 6) {
			const lead = pick(change);
			sim.control.portalDeleteLead(lead.id);
			event = `lead/delete ${lead.id}`;
		} else if (change % 2 === 0) {
			event = `lead/create ${sim.control.portalCreateLead({ firstName: 'Scale', lastName: `C${change}` }).id}`;
		} else {
			const lead = pick(change);
			sim.control.portalUpdateLead(lead.id, { value: change });
			event = `lead/update ${lead.id}`;
		}
		changedAt.set(event, Date.now());
		await sleep(CHANGES_OVER_MS / 23);
	}

	changesMade = true;
	await watching;
	await sleep(2 * MINUTE);
	const perLook = requests.stop();
	await rest.deactivateWorkflow(workflow);

	const ran = (await polledEvents(rest, workflow.id)).flat();
	const seconds = (topic: string) =>
		[...changedAt]
			.filter(([event]) => event.startsWith(topic))
			.map(([event, at]) => Math.round(((ranAt.get(event) ?? 0) - at) / 1000));
	const [creates, updates, deletes] = ['create', 'update', 'delete'].map((topic) =>
		seconds(`lead/${topic}`),
	);
	const sorted = (values: number[]) => [...values].sort((a, b) => a - b).join(', ');
	process.stdout.write(
		`      n8n ${n8n.version}${durable ? ' (durable cursors)' : ''}: publishing answered in ${activationMs} ms (${publishingRequests} list requests); the first read-through in ${Math.round(baselineMs / 1000)} s; seconds to a run: creates ${sorted(creates)}; updates ${sorted(updates)}; deletes ${sorted(deletes)} (a read-through stated: ${sweepMs / 1000} s); ${perLook.length} looks, list requests per look most ${Math.max(...perLook)}, in all ${perLook.reduce((sum, count) => sum + count, 0)}\n`,
	);
	assert.deepEqual([...ran].sort(), [...changedAt.keys()].sort(), 'each change runs once');
	// a Poll Time, the look's reading (20 s at most), the execution, the 5 s between checks here
	assert.ok(Math.max(...creates) <= 60 + 35, `a create ran ${Math.max(...creates)} s after`);
	assert.ok(
		Math.max(...updates) <= sweepMs / 1000 + 90,
		`an update ran ${Math.max(...updates)} s after, past the ${sweepMs / MINUTE} minutes stated`,
	);
	assert.ok(
		Math.max(...deletes) <= (2 * sweepMs) / 1000 + 90,
		`a delete ran ${Math.max(...deletes)} s after, past twice the ${sweepMs / MINUTE} minutes stated`,
	);
	assert.ok(
		Math.max(publishingRequests, ...perLook) <= RATE,
		`${Math.max(publishingRequests, ...perLook)} list requests in one look`,
	);
}

export const pollingAtScale: Scenario = {
	name: `polling trigger at scale: ${PORTAL.toLocaleString('en')} leads 1.5 s away, each change once, creates within a Poll Time`,
	async run(context) {
		await atScale(context, false);
	},
};

export const pollingAtScaleWithDurableCursors: Scenario = {
	name: `polling trigger at scale with durable poll cursors: ${PORTAL.toLocaleString('en')} leads 1.5 s away, each change once`,
	appliesTo: (major) => major >= 2,
	ownN8n: true,
	async run(context) {
		await atScale(context, true);
	},
};
