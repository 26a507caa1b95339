/**
 * A hard kill of n8n in the middle of a burst of lead events, as the OOM killer or a power cut
 * does it: an active Partner Referral Service Trigger (lead/create and lead/update, Fetch Full
 * Lead, a short Wait after it so that executions are in flight), leads created one after the
 * other and existing leads changed; after the k-th create n8n gets SIGKILL, stays down past the
 * service's retries while the burst goes on, and is started again. Then every event must have run
 * to the end at least once, none twice unless the second run is marked as a re-run, and no other
 * lead may run.
 */
import { randomUUID } from 'node:crypto';

import { nodeOutput } from '../lib/execution-data';
import { subscriptionsOf } from '../lib/lead-trigger';
import { pollUntil, sleep } from '../lib/wait';
import type { ScenarioContext } from '../scenarios/context';
import { leadTriggerNode, NODE, type WorkflowDefinition } from '../workflows';

/** Where the kills of a run land: the issue's points first (7, 18, 33), then spread over the burst. */
export function killPoints(kills: number, creates: number): number[] {
	const points = [18, 7, 33, 12, 26, 3, 38, 22, 15, 30].filter((point) => point <= creates);
	while (points.length < kills) points.push(1 + ((points.length * 7) % creates));
	return points.slice(0, kills);
}

/** One line of counts for a burst's outcome. */
export function describeOutcome(outcome: BurstOutcome): string {
	return [
		`kill after create ${outcome.plan.killAfterCreate}`,
		`${outcome.expected} events`,
		`${outcome.answeredBeforeKill} answered before the kill`,
		`lost ${outcome.lost.length}`,
		`doubled ${outcome.doubled.length}`,
		`re-runs marked ${outcome.reruns} (of finished runs ${outcome.rerunsOfFinished})`,
		`recovered ${outcome.recovered}`,
		`crashed executions ${outcome.crashed}`,
		`finished without data ${outcome.withoutData}`,
		`other leads run ${outcome.unexpected.length}`,
		outcome.settledAfterMs === undefined
			? `not every event ran (waited ${(outcome.waitedMs / 1000).toFixed(0)} s after the restart)`
			: `all ran ${(outcome.settledAfterMs / 1000).toFixed(1)} s after the restart`,
	].join(', ');
}

export interface BurstPlan {
	/** leads in the portal before activation (untouched ones must never run) */
	seeded: number;
	/** leads created one after the other */
	creates: number;
	/** existing leads changed, spread over the burst */
	updates: number;
	/** existing leads deleted while n8n is down (lead/delete chosen when > 0) */
	deletes: number;
	/** between two portal changes */
	gapMs: number;
	/** SIGKILL right after this create (1-based) */
	killAfterCreate: number;
	/**
	 * ...and once the service got this many 200s for the burst (waited for up to 30 s): so
	 * that the kill lands while answered events are still being turned into runs.
	 */
	killOnceAnswered: number;
	/** how long each execution waits after the trigger (keeps executions in flight) */
	workSeconds: number;
}

export const ISSUE_BURST: BurstPlan = {
	seeded: 60,
	creates: 40,
	updates: 5,
	deletes: 0,
	gapMs: 120,
	killAfterCreate: 18,
	killOnceAnswered: 3,
	workSeconds: 0.5,
};

export interface BurstOutcome {
	plan: BurstPlan;
	/** events the portal emitted: `<topic> <lead id>` */
	expected: number;
	/** events the service got a 200 for before the kill */
	answeredBeforeKill: number;
	/** expected events with no finished execution */
	lost: string[];
	/** expected events that ran to the end more than once without the later run marked as a re-run */
	doubled: string[];
	/** runs marked as a re-run of an interrupted execution */
	reruns: number;
	/** events whose marked re-run followed a run of theirs that had finished (its finish not saved yet) */
	rerunsOfFinished: number;
	/** runs marked as recovered (missed while down) */
	recovered: number;
	/** executions n8n marked crashed (the ones the kill interrupted) */
	crashed: number;
	/**
	 * executions n8n 1.x marked finished at its start from its event log, without their data (the
	 * kill caught them while saving): they show no event; the trigger runs theirs again, marked
	 */
	withoutData: number;
	/** runs of leads that did not change (must be none) */
	unexpected: string[];
	/** from n8n's start to the last expected event finished (undefined: not all ran in time) */
	settledAfterMs: number | undefined;
	/** from n8n's start to the end of the wait for the runs */
	waitedMs: number;
}

/** What a burst needs: n8n's REST API, the service, a stored credential. */
export type BurstContext = Pick<ScenarioContext, 'rest' | 'sim' | 'credential'>;

/**
 * The kill: stops n8n (or one of its processes) hard, runs `whileDown`, starts it again. By
 * default the one n8n of a scenario; queue mode kills a webhook process or the main.
 */
export type Interruption = (whileDown: () => Promise<void>) => Promise<void>;

export function hardKillOf(n8n: ScenarioContext['n8n']): Interruption {
	return async (whileDown) => await n8n.restart({ kill: true, whileStopped: whileDown });
}

type TriggerItem = {
	event?: { id?: string; topic?: string };
	recovered?: boolean;
	recoveryReason?: string;
};

function burstWorkflow(
	context: BurstContext,
	plan: BurstPlan,
): { workflow: WorkflowDefinition; webhookId: string } {
	const webhookId = randomUUID();
	const events = ['lead/create', 'lead/update', ...(plan.deletes > 0 ? ['lead/delete'] : [])];
	const wait = 'Work';
	return {
		webhookId,
		workflow: {
			name: `crash burst ${webhookId.slice(0, 8)}`,
			nodes: [
				leadTriggerNode(context.credential, webhookId, { events, fetchFullLead: true }),
				{
					id: randomUUID(),
					name: wait,
					type: 'n8n-nodes-base.wait',
					typeVersion: 1.1,
					position: [220, 0],
					webhookId: randomUUID(),
					parameters: { resume: 'timeInterval', amount: plan.workSeconds, unit: 'seconds' },
				},
			],
			connections: { [NODE.trigger]: { main: [[{ node: wait, type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		},
	};
}

const FINISHED = new Set(['success', 'error']);
const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/**
 * Every run of the workflow: each item the trigger gave an execution (several where events
 * shared it), with the execution's status; an execution without data counts as one run.
 */
async function runsOf(context: BurstContext, workflowId: string) {
	const summaries = await context.rest.listExecutions(workflowId);
	const executions = await Promise.all(
		summaries.map(async (summary) => {
			// n8n 1.x can leave an execution row without its data when killed while saving it
			const detail = await context.rest.getExecution(summary.id).catch(() => undefined);
			const items = (detail ? nodeOutput(detail, NODE.trigger) : []) as TriggerItem[];
			return (items.length > 0 ? items : [{}]).map((item) => ({
				status: summary.status,
				item,
				stoppedAt: summary.stoppedAt,
			}));
		}),
	);
	return executions.flat();
}

/** The portal's changes of the burst, in order: creates with updates spread among them. */
function burstChanges(context: BurstContext, plan: BurstPlan, toUpdate: string[]) {
	const changes: Array<{ afterCreate: number; run: () => string }> = [];
	const updateEvery = Math.max(1, Math.floor(plan.creates / Math.max(1, plan.updates)));
	let updated = 0;
	for (let index = 1; index <= plan.creates; index++) {
		changes.push({
			afterCreate: index,
			run: () => {
				const lead = context.sim.control.portalCreateLead({
					firstName: 'Burst',
					lastName: `${index}`,
				});
				return `lead/create ${lead.id}`;
			},
		});
		if (index % updateEvery === 0 && updated < plan.updates) {
			const id = toUpdate[updated++]!;
			changes.push({
				afterCreate: index,
				run: () => {
					context.sim.control.portalUpdateLead(id, { value: 1000 + index });
					return `lead/update ${id}`;
				},
			});
		}
	}
	return changes;
}

async function runChanges(changes: Array<{ run: () => string }>, gapMs: number, into: string[]) {
	for (const change of changes) {
		into.push(change.run());
		await sleep(gapMs);
	}
}

/**
 * Runs the burst with one kill and counts what ran. `noCheckFollows`: the restart brings no check
 * for missed events (a webhook process killed: the leader's next check is hours away), so once
 * nothing ran for a while nothing more will, and the wait ends there.
 */
export async function crashDuringBurst(
	context: BurstContext,
	plan: BurstPlan,
	interrupt: Interruption,
	noCheckFollows = false,
): Promise<BurstOutcome> {
	const { rest, sim } = context;
	const seeded = sim.control.seedLeads(plan.seeded);
	const { workflow, webhookId } = burstWorkflow(context, plan);
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	await pollUntil(() => (subscriptionsOf(sim, webhookId).length >= 2 ? true : undefined), {
		timeoutMs: 60_000,
		what: 'the trigger to subscribe',
	});
	await sleep(1_100); // lead times with whole seconds: past the activation's listing
	const toUpdate = seeded.slice(0, plan.updates).map((lead) => lead.id);
	const toDelete = seeded.slice(plan.updates, plan.updates + plan.deletes).map((lead) => lead.id);
	const before = new Set(sim.control.deliveries().map((attempt) => attempt.deliveryId));
	const changes = burstChanges(context, plan, toUpdate);
	const after = changes.findIndex((change) => change.afterCreate > plan.killAfterCreate);
	const killPoint = after === -1 ? changes.length : after;

	const expected: string[] = [];
	await runChanges(changes.slice(0, killPoint), plan.gapMs, expected);
	const answered = () =>
		sim.control
			.deliveries()
			.filter((attempt) => !before.has(attempt.deliveryId) && attempt.acknowledged).length;
	await pollUntil(() => (answered() >= plan.killOnceAnswered ? true : undefined), {
		timeoutMs: 30_000,
		intervalMs: 20,
		what: `${plan.killOnceAnswered} deliveries answered 200 before the kill`,
	}).catch(() => undefined);
	const answeredBeforeKill = answered();
	// SIGKILL now; the burst goes on while n8n is down, past the service's retries
	await interrupt(async () => {
		await runChanges(changes.slice(killPoint), plan.gapMs, expected);
		for (const id of toDelete) {
			sim.control.portalDeleteLead(id);
			expected.push(`lead/delete ${id}`);
		}
		await sim.control.waitForDeliveries(60_000);
	});
	const outcome = await settle(context, created.id, expected, Date.now(), noCheckFollows);
	await rest.deactivateWorkflow(created).catch(() => undefined);
	return { plan, answeredBeforeKill, ...outcome };
}

/** Without a check to come, runs this long unchanged are the end of them. */
const QUIET_MS = 20_000;

async function settle(
	context: BurstContext,
	workflowId: string,
	expected: string[],
	restartedAt: number,
	noCheckFollows: boolean,
): Promise<Omit<BurstOutcome, 'plan' | 'answeredBeforeKill'>> {
	const wanted = new Set(expected);
	// Recovery checks 15 s after n8n starts; each check lists the portal. Wait until every event
	// ran or two minutes passed (with no check to come: or nothing ran for QUIET_MS), then a quiet
	// moment for anything that would run twice.
	let settledAt: number | undefined;
	let lastRuns = '';
	let lastChangeAt = Date.now();
	await pollUntil(
		async () => {
			const runs = await runsOf(context, workflowId);
			// not only finished ones: an execution the killed process created and never queued stays new
			const seen = runs.map((run) => run.status).join();
			if (seen !== lastRuns) [lastRuns, lastChangeAt] = [seen, Date.now()];
			else if (noCheckFollows && Date.now() - lastChangeAt >= QUIET_MS) return true;
			if (!runs.every((run) => DONE.has(run.status))) return undefined;
			const finished = new Set(
				runs
					.filter((run) => FINISHED.has(run.status))
					.map((run) => `${run.item.event?.topic} ${run.item.event?.id}`),
			);
			if (![...wanted].every((event) => finished.has(event))) return undefined;
			settledAt = Date.now();
			return true;
		},
		{ timeoutMs: 120_000, intervalMs: 1_000, what: 'every event of the burst to run' },
	).catch(() => undefined);
	const waitedUntil = Date.now();
	await sleep(20_000);
	const runs = await runsOf(context, workflowId);
	const byEvent = new Map<string, TriggerItem[]>();
	const withoutData = runs.filter((run) => FINISHED.has(run.status) && !run.item.event);
	for (const run of runs) {
		if (!FINISHED.has(run.status) || !run.item.event) continue;
		const key = `${run.item.event?.topic} ${run.item.event?.id}`;
		byEvent.set(key, [...(byEvent.get(key) ?? []), run.item]);
	}
	const isRerun = (item: TriggerItem) => item.recoveryReason === 'interrupted';
	return {
		expected: wanted.size,
		lost: [...wanted].filter((event) => !byEvent.has(event)),
		doubled: [...byEvent.entries()]
			.filter(([, items]) => items.filter((item) => !isRerun(item)).length > 1)
			.map(([event]) => event),
		reruns: runs.filter((run) => isRerun(run.item)).length,
		rerunsOfFinished: [...byEvent.values()].filter(
			(items) => items.some(isRerun) && items.some((item) => !isRerun(item)),
		).length,
		recovered: runs.filter((run) => run.item.recovered === true && !isRerun(run.item)).length,
		crashed: runs.filter((run) => run.status === 'crashed').length,
		withoutData: withoutData.length,
		unexpected: [...byEvent.keys()].filter((event) => !wanted.has(event)),
		settledAfterMs: settledAt === undefined ? undefined : settledAt - restartedAt,
		waitedMs: waitedUntil - restartedAt,
	};
}

/**
 * The window a hard kill can still turn into a re-run of a finished execution: from n8n's end
 * of the execution to the service's 200 (the run's record is saved in between). Measured on a
 * burst without a kill: per delivery, the service's answer time less the execution's stoppedAt.
 */
export async function answerWindowMs(context: BurstContext, creates: number): Promise<number[]> {
	const { rest, sim } = context;
	const { workflow, webhookId } = burstWorkflow(context, { ...ISSUE_BURST, deletes: 0 });
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	await pollUntil(() => (subscriptionsOf(sim, webhookId).length >= 2 ? true : undefined), {
		timeoutMs: 60_000,
		what: 'the trigger to subscribe',
	});
	await sleep(1_100);
	const before = new Set(sim.control.deliveries().map((attempt) => attempt.deliveryId));
	const leads: string[] = [];
	for (let index = 0; index < creates; index++) {
		leads.push(sim.control.portalCreateLead({ firstName: 'Window', lastName: `${index}` }).id);
		await sleep(ISSUE_BURST.gapMs);
	}
	await sim.control.waitForDeliveries(120_000);
	const runs = await runsOf(context, created.id);
	await rest.deactivateWorkflow(created).catch(() => undefined);
	const stopped = new Map(runs.map((run) => [run.item.event?.id, Date.parse(run.stoppedAt ?? '')]));
	return sim.control
		.deliveries()
		.filter((attempt) => !before.has(attempt.deliveryId) && attempt.acknowledged)
		.map((attempt) => Date.parse(attempt.answeredAt) - (stopped.get(attempt.leadId) ?? NaN))
		.filter((ms) => Number.isFinite(ms))
		.sort((a, b) => a - b);
}
