import type { IDataObject } from 'n8n-workflow';

import type { ListedLead } from '../../shared/changes/listedLead';
import { type KeptLead, keptRowOf } from '../../shared/changes/fieldChanges';
import { leadKey } from '../../shared/changes/versions';
import type { WatchedState } from '../../shared/changes/watchedValues';
import {
	MAX_KEPT_VALUE_CHARS,
	sameFields,
	storedWatchedValues,
	takeInWatchedValues,
	WATCHED_KEY,
	watchedStateFor,
} from '../../shared/changes/watchedValues';
import { watchedFieldIds } from '../../shared/changes/watchedFields';
import type { PartnerLeadsFunctions } from '../../shared/transport/request';
import { type NodeStore, nodeScope, StoreKind } from '../../shared/state/nodeStore';

/**
 * Watched fields' values per lead (Fields to Watch), in memory and static data (watchedValues.ts;
 * merged per lead by nodeStore.ts). Values replaced by a run go with it (`watchedBefore`), so a
 * re-run shows the same `from`; they come back if n8n does not start the run.
 */

const WATCHED_LEADS = new StoreKind<WatchedState>({
	key: WATCHED_KEY,
	name: 'watchedLeads',
	create: () => watchedStateFor([]),
	takeIn: takeInWatchedValues,
	stored: storedWatchedValues,
});

/** The values a run keeps when it starts, and those they replace (for its re-run and a rollback). */
export interface WatchedRecord {
	leadId: string;
	kept: KeptLead;
	before: KeptLead | undefined;
}

export class WatchedLeads {
	private readonly store: NodeStore<WatchedState> | undefined;

	private readonly state: WatchedState | undefined;

	/**
	 * `fields`: watched field ids (a new choice starts anew); omitted: those in memory. `scope`
	 * undefined: a stored copy for a test event, so a test never changes production's values.
	 */
	constructor(
		private readonly nodeData: IDataObject,
		scope: string | undefined,
		private readonly fields?: readonly string[],
	) {
		const shape = fields && {
			create: () => watchedStateFor(fields),
			fits: (state: WatchedState) => sameFields(state.values.fields, fields),
		};
		if (fields?.length === 0) {
			if (scope !== undefined) WATCHED_LEADS.forget(scope);
		} else if (scope === undefined) {
			this.state = shape && WATCHED_LEADS.read(nodeData, shape);
		} else if (shape || WATCHED_LEADS.holds(scope)) {
			this.store = WATCHED_LEADS.open(nodeData, scope, shape);
			this.state = this.store.memory;
		}
	}

	get watching(): boolean {
		return this.state !== undefined;
	}

	/** Whether the portal's leads are still to be listed for these fields' values. */
	get baselineDue(): boolean {
		return this.state !== undefined && !this.state.complete;
	}

	kept(leadId: string): KeptLead | undefined {
		return this.state?.values.get(leadKey(leadId));
	}

	record(leadId: string, kept: KeptLead): void {
		this.state?.values.record(leadKey(leadId), kept);
		this.save();
	}

	/** A run that did not start: its values are replaced by those before, unless newer came. */
	restore(record: WatchedRecord): void {
		this.state?.values.restore(leadKey(record.leadId), record.kept, record.before);
		this.save();
	}

	drop(leadId: string): void {
		this.state?.values.drop(leadKey(leadId));
		this.save();
	}

	/** The values of the leads the portal holds now (a new activation, or new fields). */
	takeBaseline(leads: ListedLead[]): void {
		const state = this.state;
		if (!state) return;
		for (const { id, version, lead } of leads)
			state.values.record(leadKey(id), {
				ms: version ?? 0,
				row: keptRowOf(lead, state.values.fields, MAX_KEPT_VALUE_CHARS),
			});
		state.complete = true;
		this.save();
	}

	/** Writes the process memory into static data; with no field watched, removes what was kept. */
	save(): void {
		if (this.store) this.store.save();
		else if (this.fields?.length === 0) WATCHED_LEADS.clear(this.nodeData);
	}
}

/** The production values of a trigger node, for the fields it watches now. */
export function watchedLeadsOf(context: PartnerLeadsFunctions): WatchedLeads {
	return new WatchedLeads(
		context.getWorkflowStaticData('node'),
		nodeScope(context),
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
