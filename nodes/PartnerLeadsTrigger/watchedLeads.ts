import { randomUUID } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { KeptLead } from '../shared/changes/watchVerdict';
import type { ListedLead } from '../shared/changes/listedLead';
import { keptRowOf } from '../shared/changes/fieldChanges';
import { leadKey } from '../shared/changes/versions';
import type { WatchedState } from '../shared/changes/watchedValues';
import {
	MAX_KEPT_VALUE_CHARS,
	mergeWatchedValues,
	storedWatchedWriter,
	WatchedValues,
	writeWatchedValues,
} from '../shared/changes/watchedValues';
import { watchedFieldIds } from '../shared/changes/watchedFields';
import type { PartnerLeadsFunctions } from '../shared/transport/request';
import { ProductionNodeMemories } from './processMemory';
import { productionScope } from './scope';

/**
 * The watched fields' values per lead of one trigger node (Fields to Watch), in process memory
 * and in static data (the stored form: nodes/shared/changes/watchedValues.ts). Like the ledger,
 * every writer (a delivery's save, the emit of `trigger()`) first takes in the stored copies of
 * other writers (per lead the newer version) and writes the union back.
 *
 * A run's values are kept when it starts, before the emit that saves them; the values they
 * replaced go with the run in flight (`watchedBefore`), so that its re-run after a hard kill
 * shows the same `from`, and they are put back if n8n does not start the run.
 */

/** Stored copies of other writers remembered as taken in (queue mode has several writers). */
const MERGED_COPIES_KEPT = 100;

class Memory {
	readonly id = randomUUID();

	saves = 0;

	/** copies taken in once: a lead dropped since must not come back from them */
	readonly merged = new Set<string>();

	readonly state: WatchedState;

	constructor(fields: readonly string[]) {
		this.state = { values: new WatchedValues(fields), complete: false };
	}
}

const memories = new ProductionNodeMemories<Memory>('watchedLeads');

/** The values a run keeps when it starts, and those they replace (for its re-run and a rollback). */
export interface WatchedRecord {
	leadId: string;
	kept: KeptLead;
	before: KeptLead | undefined;
}

function sameFields(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((field, i) => field === b[i]);
}

export class WatchedLeads {
	private readonly memory: Memory | undefined;

	/**
	 * `fields`: the watched field ids (a new choice starts anew); omitted: those in memory.
	 * `scope` undefined: a copy of the stored values alone, apart from process memory (a test
	 * event reads them; a test must not change what production runs compare with).
	 */
	constructor(
		private readonly nodeData: IDataObject,
		scope: string | undefined,
		private readonly fields?: readonly string[],
	) {
		let memory = scope === undefined ? undefined : memories.get(scope);
		if (fields && (!memory || !sameFields(memory.state.values.fields, fields))) {
			memory = fields.length > 0 ? new Memory(fields) : undefined;
			if (scope !== undefined && memory) memories.set(scope, memory);
			else if (scope !== undefined) memories.delete(scope);
		}
		this.memory = memory;
		this.sync();
	}

	private sync(): void {
		const memory = this.memory;
		const writer = storedWatchedWriter(this.nodeData) ?? '';
		if (!memory || writer.startsWith(`${memory.id}:`) || memory.merged.has(writer)) return;
		memory.merged.add(writer);
		if (memory.merged.size > MERGED_COPIES_KEPT)
			memory.merged.delete(memory.merged.values().next().value as string);
		mergeWatchedValues(this.nodeData, memory.state);
	}

	get watching(): boolean {
		return this.memory !== undefined;
	}

	/** Whether the portal's leads are still to be listed for these fields' values. */
	get baselineDue(): boolean {
		return this.memory !== undefined && !this.memory.state.complete;
	}

	kept(leadId: string): KeptLead | undefined {
		return this.memory?.state.values.get(leadKey(leadId));
	}

	record(leadId: string, kept: KeptLead): void {
		this.memory?.state.values.record(leadKey(leadId), kept);
		this.save();
	}

	/** A run that did not start: its values are replaced by those before, unless newer came. */
	restore(record: WatchedRecord): void {
		this.memory?.state.values.restore(leadKey(record.leadId), record.kept, record.before);
		this.save();
	}

	drop(leadId: string): void {
		this.memory?.state.values.drop(leadKey(leadId));
		this.save();
	}

	/** The values of the leads the portal holds now (a new activation, or new fields). */
	takeBaseline(leads: ListedLead[]): void {
		const memory = this.memory;
		if (!memory) return;
		const { values } = memory.state;
		for (const { id, version, lead } of leads)
			values.record(leadKey(id), {
				ms: version ?? 0,
				row: keptRowOf(lead, values.fields, MAX_KEPT_VALUE_CHARS),
			});
		memory.state.complete = true;
		this.save();
	}

	/** Writes the process memory into static data; with no field watched, removes what was kept. */
	save(): void {
		const memory = this.memory;
		if (!memory) {
			if (this.fields?.length === 0)
				writeWatchedValues(this.nodeData, { values: new WatchedValues([]), complete: false });
			return;
		}
		memory.saves++;
		writeWatchedValues(this.nodeData, memory.state, { writer: `${memory.id}:${memory.saves}` });
	}
}

/** The production values of a trigger node, for the fields it watches now. */
export function watchedLeadsOf(context: PartnerLeadsFunctions): WatchedLeads {
	return new WatchedLeads(
		context.getWorkflowStaticData('node'),
		productionScope(context),
		watchedFieldIds(context),
	);
}

/** The stored form of values that go with a run in flight (`InFlightRun.watchedBefore`). */
export function packKeptLead(kept: KeptLead | undefined): string | undefined {
	return kept ? JSON.stringify([kept.ms, kept.row]) : undefined;
}

export function unpackKeptLead(packed: unknown): KeptLead | undefined {
	if (typeof packed !== 'string') return undefined;
	try {
		const [ms, row] = JSON.parse(packed) as unknown[];
		return typeof ms === 'number' && Array.isArray(row)
			? { ms, row: row as KeptLead['row'] }
			: undefined;
	} catch {
		return undefined;
	}
}
