import type { IDataObject } from 'n8n-workflow';

import type { ListedLead } from './listedLead';

/** Judges a listing against what a trigger knows, in service time only (n8n's clock may differ). */

export interface KnownChanges {
	/** listening since (service time): a lead created after it that never ran is new */
	sinceMs: number;
	/** changes at or before this (service time) ran, predate listening, or may have run */
	judgedUpToMs: number;
	hasRun(id: string, version: number): boolean;
	/** whether some version of the lead ran (so its creation did) */
	knows(id: string): boolean;
	/** the ids listed last time; undefined when they are not kept */
	listedIds?: Pick<ReadonlySet<string>, 'has'>;
	/**
	 * with `listedIds`: leads created up to this (service time) were there when listening began,
	 * so never new, even if the last listing missed them (a list whose order moved under it)
	 */
	thereUpToMs?: number;
}

/** A listed lead's change that has not run: its creation or an update, at its version. */
export interface LeadChange {
	lead: IDataObject;
	id: string;
	topic: 'lead/create' | 'lead/update';
	version: number;
}

export interface Judgement {
	/** oldest first */
	changes: LeadChange[];
	/** the newest version listed; undefined when no lead has one */
	newestMs: number | undefined;
}

export function judgeListing(listed: ListedLead[], known: KnownChanges): Judgement {
	const changes: LeadChange[] = [];
	for (const entry of listed) {
		const change = changeOf(entry, known);
		if (change) changes.push(change);
	}
	return {
		changes: changes.sort((a, b) => a.version - b.version),
		newestMs: newestVersion(listed),
	};
}

function changeOf(listed: ListedLead, known: KnownChanges): LeadChange | undefined {
	const { id, version, createdMs, lead } = listed;
	if (version === undefined || version <= known.judgedUpToMs || known.hasRun(id, version))
		return undefined;
	const isNew = !known.knows(id) && isNewLead(id, createdMs, known);
	return { lead, id, topic: isNew ? 'lead/create' : 'lead/update', version };
}

/** Not listed last time and not there when listening began (or, without ids, created since). */
function isNewLead(id: string, createdMs: number | undefined, known: KnownChanges): boolean {
	if (!known.listedIds) return createdMs !== undefined && createdMs > known.sinceMs;
	const wasThere = createdMs !== undefined && createdMs <= (known.thereUpToMs ?? -Infinity);
	return !known.listedIds.has(id) && !wasThere;
}

export function newestVersion(listed: ListedLead[]): number | undefined {
	let newest: number | undefined;
	for (const { version } of listed)
		if (version !== undefined) newest = Math.max(newest ?? version, version);
	return newest;
}

/** The margin below the newest version listed (late commits still run); never lower than before. */
export function watermarkAfter(
	sinceMs: number,
	newestMs: number | undefined,
	marginMs: number,
): number {
	return newestMs === undefined ? sinceMs : Math.max(sinceMs, newestMs - marginMs);
}

/** A new activation's baseline: the watermark, and the leads at or above it to record as run. */
export function baselineOf(
	listed: ListedLead[],
	marginMs: number,
): { sinceMs: number; present: Array<{ id: string; version: number }> } {
	const sinceMs = watermarkAfter(0, newestVersion(listed), marginMs);
	const present: Array<{ id: string; version: number }> = [];
	for (const { id, version } of listed)
		if (version !== undefined && version > 0 && version >= sinceMs) present.push({ id, version });
	return { sinceMs, present };
}
