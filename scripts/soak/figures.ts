import type { Execution } from '../../test/harness/webhooks';
import type { DeliveryAttempt, Lead } from '../../test/simulator/types';
import type { ItemTally } from './workload';
import { SOAK_EMAIL_DOMAIN } from './workload';

/** The figures the soak prints and writes to bench-results/soak.json. */
export interface SoakFigures {
	durationSeconds: number;
	pushSeconds: number;
	seed: number;
	portalDeletesOlderLeads: boolean;
	items: {
		pushed: number;
		created: number;
		updated: number;
		failedWithClearError: number;
		/** expected 0 */
		failedWithoutClearError: number;
		failuresByKind: Record<string, number>;
		failureSamples: Record<string, string>;
		runs: number;
		byWorkflow: Record<string, { runs: number; items: number }>;
		/** expected 0: a run that ended in an error despite Continue On Fail, or that n8n-core could not finish */
		runsCrashed: number;
	};
	leads: {
		/** every lead the simulator holds at the end */
		held: number;
		/** leads with a soak e-mail address */
		heldFromPushes: number;
		/** expected 0: leads beyond the first with the same e-mail address (any letter case) */
		duplicatesCreated: number;
		duplicateEmails: string[];
	};
	events: {
		/** one per event and subscription (one subscription per topic) */
		emitted: number;
		emittedByTopic: Record<string, number>;
		deliveryAttempts: number;
		duplicateDeliveriesSent: number;
		/** deliveries the service gave up on after its last attempt */
		abandonedByService: number;
		executionsStarted: number;
		/** expected 0 */
		lost: number;
		lostSamples: string[];
		/** expected 0 */
		runTwice: number;
		/** expected 0: executions for an event the service never emitted */
		executedWithoutEvent: number;
		triggerAnswers: Record<number, number>;
		/** expected 0: webhook() threw (n8n answers 500) */
		triggerCrashes: number;
	};
	subscriptions: {
		activationAttempts: number;
		deactivationError: string | null;
		/** expected 0 */
		orphansAfterDeactivation: number;
	};
	auth: {
		tokenRequests: number;
		tokensIssued: number;
		tokenExpiriesForced: number;
	};
	requests: Record<string, Record<number, number>>;
	faults: Record<string, unknown>;
}

/** The figures that must be 0, with their names as printed. */
export function nonZeroExpectations(figures: SoakFigures): string[] {
	const expectations: Array<[string, number]> = [
		['duplicates created', figures.leads.duplicatesCreated],
		['events lost', figures.events.lost],
		['events run twice', figures.events.runTwice],
		['executions without an emitted event', figures.events.executedWithoutEvent],
		['orphan subscriptions after deactivation', figures.subscriptions.orphansAfterDeactivation],
		['items failed without a clear error', figures.items.failedWithoutClearError],
		['runs crashed', figures.items.runsCrashed],
		['trigger crashes (500)', figures.events.triggerCrashes],
	];
	return expectations
		.filter(([, value]) => value !== 0)
		.map(([name, value]) => `${name}: ${value} (expected 0)`);
}

export function leadFigures(leads: Lead[], history?: Map<string, string[]>): SoakFigures['leads'] {
	const byEmail = new Map<string, number>();
	let heldFromPushes = 0;
	for (const lead of leads) {
		const email = (lead.email ?? '').toLowerCase();
		if (!email.endsWith(`@${SOAK_EMAIL_DOMAIN}`)) continue;
		heldFromPushes++;
		byEmail.set(email, (byEmail.get(email) ?? 0) + 1);
	}
	const duplicates = [...byEmail].filter(([, count]) => count > 1);
	return {
		held: leads.length,
		heldFromPushes,
		duplicatesCreated: duplicates.reduce((sum, [, count]) => sum + count - 1, 0),
		duplicateEmails: duplicates
			.slice(0, 10)
			.map(
				([email, count]) =>
					`${email} x${count}${history ? ` [${(history.get(email) ?? []).join(' / ')}]` : ''}`,
			),
	};
}

function eventKey(topic: string, id: string, timestamp: string): string {
	return `${topic} ${id} ${timestamp}`;
}

export function eventFigures(
	attempts: DeliveryAttempt[],
	executions: Execution[],
	answers: Record<number, number>,
	crashes: number,
): SoakFigures['events'] {
	const deliveries = new Map<string, { key: string; topic: string; acknowledged: boolean }>();
	let duplicateDeliveriesSent = 0;
	for (const attempt of attempts) {
		if (attempt.duplicate) duplicateDeliveriesSent++;
		const known = deliveries.get(attempt.deliveryId);
		const entry = known ?? {
			key: eventKey(attempt.topic, attempt.leadId, attempt.timestamp),
			topic: attempt.topic,
			acknowledged: false,
		};
		entry.acknowledged ||= attempt.acknowledged;
		deliveries.set(attempt.deliveryId, entry);
	}
	const runs = new Map<string, number>();
	for (const execution of executions) {
		for (const item of execution.items) {
			const event = item.json.event as { id: string; topic: string; timestamp: string } | undefined;
			if (!event) continue;
			const key = eventKey(event.topic, event.id, event.timestamp);
			runs.set(key, (runs.get(key) ?? 0) + 1);
		}
	}
	const emittedKeys = new Set([...deliveries.values()].map((delivery) => delivery.key));
	const lost = [...emittedKeys].filter((key) => !runs.has(key));
	const emittedByTopic: Record<string, number> = {};
	for (const delivery of deliveries.values())
		emittedByTopic[delivery.topic] = (emittedByTopic[delivery.topic] ?? 0) + 1;
	return {
		emitted: deliveries.size,
		emittedByTopic,
		deliveryAttempts: attempts.length,
		duplicateDeliveriesSent,
		abandonedByService: [...deliveries.values()].filter((delivery) => !delivery.acknowledged)
			.length,
		executionsStarted: executions.length,
		lost: lost.length,
		lostSamples: lost.slice(0, 10),
		runTwice: [...runs.values()].filter((count) => count > 1).length,
		executedWithoutEvent: [...runs.keys()].filter((key) => !emittedKeys.has(key)).length,
		triggerAnswers: answers,
		triggerCrashes: crashes,
	};
}

export function itemFigures(tally: ItemTally): SoakFigures['items'] {
	return {
		pushed: tally.pushed,
		created: tally.created,
		updated: tally.updated,
		failedWithClearError: tally.failedClearly,
		failedWithoutClearError: tally.failedUnclearly,
		failuresByKind: tally.failuresByKind,
		failureSamples: tally.failureSamples,
		runs: tally.runs,
		byWorkflow: {
			'Lead > Create': tally.byKind.create,
			'Lead > Create or Update': tally.byKind.upsert,
		},
		runsCrashed: tally.runsCrashed,
	};
}
