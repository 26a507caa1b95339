import type { IDataObject } from 'n8n-workflow';

import { covers, type LeadVersion } from '../../shared/changes/versions';
import { isoTimeMs } from '../../shared/isoTime';
import { type LeadTopic, isLeadTopic } from '../../shared/topics';
import { type NodeStore, StoreKind } from '../../shared/state/nodeStore';

/**
 * Runs accepted or started and not finished, in static data (saved with the 200 or the emit).
 * After a hard kill those not started run and the others run again, marked. Past MAX_IN_FLIGHT
 * (~110 bytes a run) deliveries are asked to come back.
 */

export const MAX_IN_FLIGHT = 2_000;

/** Where a run came from: a delivery, or the trigger's own listing (a missed event). */
export type RunOrigin = 'delivered' | 'recovered';

export interface InFlightRun {
	/** the event's key (seenEvents.ts eventMark for deliveries; per lead version for recoveries) */
	key: string;
	topic: LeadTopic;
	leadId: string;
	/** the event time as delivered, or the recovered lead's updatedAt */
	timestamp: string;
	/** runs started for it, the first included (0: accepted, not started yet) */
	attempts: number;
	origin: RunOrigin;
	/** the watched fields' values before the run (watchedLeads.ts), so its re-run shows the same `from` */
	watchedBefore?: string;
	/** accepted before the workflow was unpublished: it runs at the next publish, marked so */
	acceptedBeforeUnpublish?: boolean;
}

/** The lead version a run stands for: a recovery's updatedAt exactly, a delivery's event time. */
export function eventVersion(run: InFlightRun): LeadVersion {
	return { ms: isoTimeMs(run.timestamp) ?? 0, exact: run.origin === 'recovered' };
}

/** The origin as stored: 'd' delivered, 'r' recovered; with 'h' when accepted before an unpublish. */
type StoredOrigin = 'd' | 'r' | 'dh' | 'rh';

type StoredRun =
	| [string, LeadTopic, string, string, number, StoredOrigin]
	| [string, LeadTopic, string, string, number, StoredOrigin, string];

const STORED_ORIGINS: readonly string[] = ['d', 'r', 'dh', 'rh'];

function pack(run: InFlightRun): StoredRun {
	const origin = run.origin === 'delivered' ? 'd' : 'r';
	const stored: StoredRun = [
		run.key,
		run.topic,
		run.leadId,
		run.timestamp,
		run.attempts,
		run.acceptedBeforeUnpublish ? `${origin}h` : origin,
	];
	return run.watchedBefore === undefined ? stored : [...stored, run.watchedBefore];
}

function unpack(raw: unknown): InFlightRun | undefined {
	if (!Array.isArray(raw) || (raw.length !== 6 && raw.length !== 7)) return undefined;
	const [key, topic, leadId, timestamp, attempts, origin, watchedBefore] = raw as unknown[];
	if (typeof key !== 'string' || !isLeadTopic(topic) || typeof leadId !== 'string')
		return undefined;
	if (typeof timestamp !== 'string' || typeof attempts !== 'number' || !(attempts >= 0))
		return undefined;
	if (typeof origin !== 'string' || !STORED_ORIGINS.includes(origin)) return undefined;
	return {
		key,
		topic,
		leadId,
		timestamp,
		attempts,
		origin: origin.startsWith('d') ? 'delivered' : 'recovered',
		...(typeof watchedBefore === 'string' ? { watchedBefore } : {}),
		...(origin.endsWith('h') ? { acceptedBeforeUnpublish: true } : {}),
	};
}

type Memory = Map<string, InFlightRun>;

const RUNS_IN_FLIGHT = new StoreKind<Memory>({
	key: 'inFlight',
	name: 'runsInFlight',
	create: () => new Map(),
	// Runs this memory never saw: from the process before a restart, or another writer.
	takeIn(runs, stored) {
		for (const raw of Array.isArray(stored.runs) ? stored.runs : []) {
			const run = unpack(raw);
			if (!run) continue;
			const known = runs.get(run.key);
			if (!known || known.attempts < run.attempts) runs.set(run.key, run);
		}
	},
	stored: (runs) => ({ runs: [...runs.values()].map(pack) }),
});

/** The production runs in flight of one trigger node. */
export class RunsInFlight {
	private readonly store: NodeStore<Memory>;

	constructor(nodeData: IDataObject, scope: string) {
		this.store = RUNS_IN_FLIGHT.open(nodeData, scope);
	}

	private get runs(): Memory {
		return this.store.memory;
	}

	/** Whether the stored copy is older than what this process knows (a run finished since). */
	get storedIsStale(): boolean {
		return !this.store.storedIsCurrent;
	}

	get(key: string): InFlightRun | undefined {
		return this.runs.get(key);
	}

	get size(): number {
		return this.runs.size;
	}

	all(): InFlightRun[] {
		return [...this.runs.values()];
	}

	/** Whether some run of this lead is in flight (its creation is covered: recovery leaves it). */
	hasLead(leadId: string): boolean {
		for (const run of this.runs.values()) if (run.leadId === leadId) return true;
		return false;
	}

	/** Whether a run in flight covers this version of the lead (recovery leaves it to that run). */
	coversVersion(leadId: string, updatedMs: number): boolean {
		for (const run of this.runs.values())
			if (run.leadId === leadId && covers(eventVersion(run), updatedMs)) return true;
		return false;
	}

	start(run: InFlightRun): void {
		this.runs.set(run.key, run);
		this.save();
	}

	finish(key: string): void {
		this.runs.delete(key);
		this.save();
	}

	/**
	 * A new activation (published again after an unpublish): runs accepted before it still run, held
	 * over and marked so; those whose event is older than `isTooOld` says are dropped and returned.
	 */
	keepAcceptedBeforeUnpublish(isTooOld: (run: InFlightRun) => boolean): InFlightRun[] {
		const dropped: InFlightRun[] = [];
		for (const run of this.runs.values()) {
			if (isTooOld(run)) {
				dropped.push(run);
				this.runs.delete(run.key);
			} else if (run.attempts === 0)
				this.runs.set(run.key, { ...run, acceptedBeforeUnpublish: true });
		}
		this.save();
		return dropped;
	}

	/** Writes the process memory into static data, to be saved whole by n8n. */
	save(): void {
		this.store.save();
	}
}
