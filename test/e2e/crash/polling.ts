/**
 * Hard kills of n8n while the Polling Trigger looks at a portal larger than one look: a sweep of
 * the list takes several Poll Times (List Requests per Minute 10, 1,500 leads, pages of 100).
 * Once the first read-through (the baseline) has ended, each round makes changes across the list
 * (a create, updates near both ends, a delete), then SIGKILLs n8n at one point of a look:
 *
 * - `reading`: while a list request of the look is held at the service (a sliced read);
 * - `fetching`: while the look fetches a full lead, that is once it has changes to run.
 *
 * n8n is started again and left until every change ran, then a read-through more: each change
 * must run once, none twice, no other lead. With n8n's default a kill between its two writes
 * (milliseconds) loses a poll's changes (docs/polling-durable-cursors.md); these points are before
 * both, so nothing may be lost there either.
 */
import { pollUntil, sleep } from '../lib/wait';
import type { ScenarioContext } from '../scenarios/context';
import { polledEvents, pollingWorkflow } from '../scenarios/polling';

export type PollKillPoint = 'reading' | 'fetching';

export interface PollingCrashOutcome {
	killWhile: PollKillPoint;
	expected: string[];
	lost: string[];
	doubled: string[];
	/** ran though no change of this round made them run */
	unexpected: string[];
	/** from the restart until every change ran */
	settledAfterMs: number | undefined;
}

const PORTAL = 1_500;
const LIST_REQUESTS_PER_MINUTE = 10;
/** a read-through at this size and budget takes about 2 looks; the bound is generous */
const SWEEP_MS = 4 * 60_000;

export function describePollingOutcome(outcome: PollingCrashOutcome): string {
	return [
		`kill while ${outcome.killWhile}`,
		`${outcome.expected.length} changes`,
		`lost ${outcome.lost.length}`,
		`doubled ${outcome.doubled.length}`,
		`other leads run ${outcome.unexpected.length}`,
		outcome.settledAfterMs === undefined
			? 'not every change ran'
			: `all ran ${(outcome.settledAfterMs / 1000).toFixed(0)} s after the restart`,
	].join(', ');
}

function listRequests(context: ScenarioContext): number {
	return context.sim.control.stats().byRoute['GET /leads'] ?? 0;
}

/** Waits until the service received one more request on `route` (the look reached it). */
async function nextRequest(context: ScenarioContext, route: 'GET /leads' | 'GET /leads/:id') {
	const count = () => context.sim.control.stats().byRoute[route] ?? 0;
	const before = count();
	await pollUntil(() => (count() > before ? 1 : undefined), {
		timeoutMs: SWEEP_MS,
		intervalMs: 100,
		what: `a look's ${route} request`,
	});
}

/**
 * One workflow, one baseline, then a round per kill point: changes, a kill there, a restart,
 * and every change counted.
 */
export async function crashesDuringPolling(
	context: ScenarioContext,
	points: PollKillPoint[],
): Promise<PollingCrashOutcome[]> {
	const { rest, sim, credential } = context;
	const leads = sim.control.seedLeads(PORTAL);
	await sleep(1_500);
	const workflow = await rest.createWorkflow(
		pollingWorkflow(credential, {
			events: ['lead/create', 'lead/update', 'lead/delete'],
			fetchFullLead: true,
			options: { listRequestsPerMinute: LIST_REQUESTS_PER_MINUTE },
		}),
	);
	const before = listRequests(context);
	await rest.activateWorkflow(workflow);
	await pollUntil(() => (listRequests(context) - before >= PORTAL / 99 + 1 ? 1 : undefined), {
		timeoutMs: 3 * SWEEP_MS,
		intervalMs: 1_000,
		what: 'the first read-through',
	});
	await sleep(60_000);
	const outcomes: PollingCrashOutcome[] = [];
	for (const [round, killWhile] of points.entries()) {
		const runsBefore = (await polledEvents(rest, workflow.id)).flat();
		const near = (share: number) => leads[Math.floor(share * PORTAL) + round]!.id;
		const created = sim.control.portalCreateLead({ firstName: 'Crash', lastName: `C${round}` });
		sim.control.portalUpdateLead(near(0.05), { value: round + 1 });
		sim.control.portalUpdateLead(near(0.95), { value: round + 1 });
		sim.control.portalDeleteLead(near(0.5));
		const expected = [
			`lead/create ${created.id}`,
			`lead/update ${near(0.05)}`,
			`lead/update ${near(0.95)}`,
			`lead/delete ${near(0.5)}`,
		];
		const route = killWhile === 'reading' ? 'GET /leads' : 'GET /leads/:id';
		sim.control.setFaults(route, { held: true });
		await nextRequest(context, route);
		await context.n8n.restart({ kill: true, whileStopped: async () => sim.control.clearFaults() });
		const restartedAt = Date.now();
		const ranSince = async () =>
			(await polledEvents(rest, workflow.id)).flat().slice(runsBefore.length);
		let settledAfterMs: number | undefined;
		await pollUntil(
			async () => {
				const ran = new Set(await ranSince());
				return expected.every((event) => ran.has(event)) ? 1 : undefined;
			},
			{ timeoutMs: 3 * SWEEP_MS, intervalMs: 5_000, what: 'every change to run' },
		)
			.then(() => (settledAfterMs = Date.now() - restartedAt))
			.catch(() => undefined);
		// a read-through more: nothing runs again
		await sleep(SWEEP_MS);
		const ran = await ranSince();
		outcomes.push({
			killWhile,
			expected,
			lost: expected.filter((event) => !ran.includes(event)),
			doubled: expected.filter((event) => ran.filter((run) => run === event).length > 1),
			unexpected: ran.filter((event) => !expected.includes(event)),
			settledAfterMs,
		});
	}
	await rest.deactivateWorkflow(workflow);
	return outcomes;
}
