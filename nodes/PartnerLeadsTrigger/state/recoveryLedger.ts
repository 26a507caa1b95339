import type { IDataObject } from 'n8n-workflow';

import type { ListedLead } from '../../shared/changes/listedLead';
import { storedNumber } from '../../shared/state/storedNumber';
import {
	covers,
	type LeadVersion,
	LeadVersions,
	leadKey,
	VERSION_TOLERANCE_MS,
} from '../../shared/changes/versions';
import { type NodeStore, StoreKind } from '../../shared/state/nodeStore';
import { type Gone, type KeptListing, KnownLeadIds } from './knownLeadIds';

/**
 * What the trigger knows about each lead's changes, so recovery and deliveries run each once:
 * - `since`: service time (never n8n's clock) from which it listened; raised by a baseline or a
 *   finished recovery. `activatedAt` and `baselineOf` tell whether a baseline is due.
 * - `delivered`: per lead, the newest version a delivery ran; recovery skips older ones.
 * - `recovered`: per lead, the version recovery ran; a delivery not newer is a late retry and
 *   starts nothing. Apart from `delivered` so out-of-order deliveries still run.
 * Kept for the Maximum Event Age, at most LEDGER_CAPACITY leads per list; a lead forgotten
 * early raises `forgottenUpTo`, so it may be missed but never runs twice.
 */

/** Leads remembered per list ('delivered', 'recovered'); like the event memory, 10,000. */
export const LEDGER_CAPACITY = 10_000;

class Memory {
	since = 0;

	activatedAt = 0;

	baselineOf = 0;

	readonly delivered = new LeadVersions();

	readonly recovered = new LeadVersions();

	/** per lead, when its delete ran (live or recovered): a lead is deleted once */
	readonly deleted = new LeadVersions();

	readonly known = new KnownLeadIds();

	/** runs recorded since the last check, in this process (an early check keeps the ledger small) */
	runsSinceCheck = 0;
}

const LEDGERS = new StoreKind<Memory>({
	key: 'recovery',
	name: 'recoveryLedgers',
	create: () => new Memory(),
	takeIn(memory, stored) {
		memory.activatedAt = Math.max(memory.activatedAt, storedNumber(stored.activatedAt));
		memory.baselineOf = Math.max(memory.baselineOf, storedNumber(stored.baselineOf));
		memory.since = Math.max(memory.since, storedNumber(stored.since));
		memory.delivered.merge(stored.delivered, stored.deliveredForgottenUpTo);
		memory.recovered.merge(stored.recovered, stored.recoveredForgottenUpTo);
		memory.deleted.merge(stored.deleted, stored.deletedForgottenUpTo);
		memory.known.merge(stored);
	},
	stored: (memory) => ({
		since: memory.since,
		activatedAt: memory.activatedAt,
		baselineOf: memory.baselineOf,
		delivered: memory.delivered.pack(),
		deliveredForgottenUpTo: memory.delivered.forgottenUpTo,
		recovered: memory.recovered.pack(),
		recoveredForgottenUpTo: memory.recovered.forgottenUpTo,
		deleted: memory.deleted.pack(),
		deletedForgottenUpTo: memory.deleted.forgottenUpTo,
		...memory.known.stored(),
	}),
});

/** The ledger of one trigger node (production deliveries only: test events are never recovered). */
export class RecoveryLedger {
	private readonly store: NodeStore<Memory>;

	private readonly memory: Memory;

	constructor(
		nodeData: IDataObject,
		scope: string,
		/** how long the ledger keeps what ran: Maximum Event Age */
		private readonly options: { maxAgeSeconds: number },
	) {
		this.store = LEDGERS.open(nodeData, scope);
		this.memory = this.store.memory;
	}

	/** Epoch ms from which the trigger has been listening; 0 when it never started. */
	get since(): number {
		return this.memory.since;
	}

	/** Earliest version (epoch ms) recovery may run: after `since` and every forgotten version. */
	get recoverAfterMs(): number {
		return Math.max(
			this.memory.since,
			this.memory.delivered.forgottenUpTo,
			this.memory.recovered.forgottenUpTo,
		);
	}

	/** Whether the lead's change at this updatedAt already ran, live or recovered. */
	hasRun(leadId: string, updatedMs: number): boolean {
		const key = leadKey(leadId);
		return (
			covers(this.memory.delivered.get(key), updatedMs) ||
			covers(this.memory.recovered.get(key), updatedMs)
		);
	}

	/** Whether some version of the lead already ran (so its creation did). */
	knows(leadId: string): boolean {
		const key = leadKey(leadId);
		return (
			this.memory.delivered.get(key) !== undefined || this.memory.recovered.get(key) !== undefined
		);
	}

	/** Whether a delivered event may be a change recovery already ran (`hasRun` decides exactly). */
	mayBeRecovered(leadId: string, eventMs: number): boolean {
		const recovered = this.memory.recovered.get(leadKey(leadId));
		return recovered !== undefined && eventMs <= recovered.ms + VERSION_TOLERANCE_MS;
	}

	/** Whether the trigger was ever activated with this ledger. */
	get activated(): boolean {
		return this.memory.activatedAt > 0;
	}

	/** Whether the leads the portal holds since the last new activation are still to be listed. */
	get baselineDue(): boolean {
		return this.memory.activatedAt > this.memory.baselineOf;
	}

	/** A new activation: nothing the portal holds now runs, once its baseline is taken. */
	startListening(): void {
		this.memory.activatedAt = Math.max(this.memory.activatedAt + 1, Date.now());
		this.save();
	}

	/**
	 * The activation's baseline: listening from `sinceMs`, leads listed above it kept as delivered
	 * (not recovered, so a delivery of a change made before this listing still runs). Those older
	 * than Maximum Event Age are not kept but taken as forgotten: no check runs them either.
	 */
	takeBaseline(sinceMs: number, present: Array<{ id: string; version: number }>): void {
		this.memory.since = Math.max(this.memory.since, sinceMs);
		for (const { id, version } of present) {
			if (version <= this.memory.since) continue;
			if (this.withinAge(version))
				this.memory.delivered.raise(leadKey(id), { ms: version, exact: true });
			else this.memory.delivered.forgetUpTo(version);
		}
		this.memory.baselineOf = this.memory.activatedAt;
		this.forgetDeliveredBelowSince();
		this.save();
	}

	/** Records that the trigger has been listening up to this time (a finished recovery). */
	listenedUpTo(timeMs: number): void {
		if (timeMs <= this.memory.since) return;
		this.memory.since = timeMs;
		this.forgetDeliveredBelowSince();
		this.save();
	}

	/**
	 * A check judges only changes after `since`: the versions delivered before it (and its
	 * tolerance) can no longer cover one, so the ledger keeps those of one check interval.
	 */
	private forgetDeliveredBelowSince(): void {
		this.memory.delivered.forget(this.memory.since - VERSION_TOLERANCE_MS, LEDGER_CAPACITY);
	}

	/** Runs recorded since the last check (or activation) in this process. */
	get runsSinceCheck(): number {
		return this.memory.runsSinceCheck;
	}

	/** Versions older than Maximum Event Age are not kept: nothing that old runs again. */
	private withinAge(ms: number): boolean {
		return ms >= Date.now() - this.options.maxAgeSeconds * 1000;
	}

	recordDelivered(leadId: string, version: LeadVersion): void {
		if (this.withinAge(version.ms)) this.memory.delivered.raise(leadKey(leadId), version);
		this.memory.known.ran(leadId);
		this.memory.runsSinceCheck++;
		this.save();
	}

	/** Whether the lead's delete already ran (a lead is deleted once). */
	hasDeleted(leadId: string): boolean {
		return this.memory.deleted.get(leadKey(leadId)) !== undefined;
	}

	/** `atMs`: the delete's event time (or when a check found the lead gone). */
	recordDeleted(leadId: string, atMs: number): void {
		this.memory.deleted.raise(leadKey(leadId), { ms: atMs, exact: true });
		this.memory.known.deleteRan(leadId);
		this.save();
	}

	/** Leads known (last listing and run since) but not listed now; undefined if no ids kept. */
	goneFrom(listed: ListedLead[]): Gone | undefined {
		return this.memory.known.gone(listed);
	}

	/** Keeps a listing's ids (undefined: lead/delete not chosen). False: too many to keep. */
	rememberListing(listing: KeptListing | undefined): boolean {
		const kept = this.memory.known.replace(listing, Date.now(), (id) => this.hasDeleted(id));
		this.memory.runsSinceCheck = 0;
		this.save();
		return kept;
	}

	/** `updatedMs`: the lead's updatedAt that ran. */
	recordRecovered(leadId: string, updatedMs: number): void {
		if (this.withinAge(updatedMs))
			this.memory.recovered.raise(leadKey(leadId), { ms: updatedMs, exact: true });
		this.memory.known.ran(leadId);
		this.save();
	}

	/** Writes the process memory into static data, versions beyond the bounds forgotten. */
	save(): void {
		const now = Date.now();
		const cutoff = now - this.options.maxAgeSeconds * 1000;
		// versions another process wrote back from before the last check go too
		const sinceCutoff = this.memory.since - VERSION_TOLERANCE_MS;
		this.memory.delivered.trim(Math.max(cutoff, sinceCutoff), LEDGER_CAPACITY, now);
		this.memory.recovered.trim(cutoff, LEDGER_CAPACITY, now);
		this.memory.deleted.trim(cutoff, LEDGER_CAPACITY, now);
		this.store.save();
	}
}
