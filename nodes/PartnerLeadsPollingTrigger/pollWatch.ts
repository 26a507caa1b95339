import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { CompareOptions } from '../shared/changes/fieldChanges';
import { compareWatchedFields, keptRowOf } from '../shared/changes/fieldChanges';
import type { LeadChange } from '../shared/changes/judge';
import type { ListedLead } from '../shared/changes/listedLead';
import { leadKey } from '../shared/changes/versions';
import {
	compareOptionsFor,
	decideWatched,
	type WatchSettings,
	watchSettingsOf,
	withChanges,
} from '../shared/changes/watchedFields';
import type { WatchedState } from '../shared/changes/watchedValues';
import {
	MAX_KEPT_VALUE_CHARS,
	storedWatchedValues,
	takeInWatchedValues,
	WATCHED_KEY,
	watchedStateFor,
} from '../shared/changes/watchedValues';
import { isRecord } from '../shared/transport/record';
import { StaticStore } from '../shared/state/nodeStore';

/** Watched values per lead, kept as the webhook trigger keeps them; only the poll writes them. */
export const POLL_WATCHED_VALUES = new StaticStore<
	WatchedState,
	WatchedState,
	[fields: readonly string[]]
>({
	key: WATCHED_KEY,
	name: 'pollWatchedValues',
	read(stored, fields) {
		const state = watchedStateFor(fields);
		takeInWatchedValues(state, stored);
		return state;
	},
	stored: (state) => (state.values.fields.length > 0 ? storedWatchedValues(state) : undefined),
});

/** Fields to Watch for polling: only leads where a watched value changed run. */
export class PollWatch {
	private options?: Promise<CompareOptions>;

	private constructor(
		private readonly context: IPollFunctions,
		readonly settings: WatchSettings,
		private readonly state: WatchedState,
	) {}

	static read(context: IPollFunctions, nodeData: IDataObject): PollWatch {
		const settings = watchSettingsOf(context);
		const fields = settings.fields;
		const state = POLL_WATCHED_VALUES.read(nodeData, fields) ?? watchedStateFor(fields);
		return new PollWatch(context, settings, state);
	}

	get watching(): boolean {
		return this.settings.fields.length > 0;
	}

	/** Picklist labels, read once per poll and only when a change needs them. */
	private compareOptions(): Promise<CompareOptions> {
		this.options ??= compareOptionsFor(this.context, this.settings.fields);
		return this.options;
	}

	private keep(id: string, lead: IDataObject, ms: number): void {
		const row = keptRowOf(lead, this.settings.fields, MAX_KEPT_VALUE_CHARS);
		this.state.values.record(leadKey(id), { ms, row });
	}

	/** Decides a fetched change as the webhook trigger does (watchDecision.ts); adds its changes. */
	async runs(change: LeadChange, json: IDataObject): Promise<boolean> {
		if (!this.watching) return true;
		const key = leadKey(change.id);
		const decision = await decideWatched(
			{
				topic: change.topic,
				lead: isRecord(json.lead) ? json.lead : undefined,
				known: this.state.values.get(key),
				fallbackMs: change.version,
			},
			this.settings,
			() => this.compareOptions(),
		);
		if (decision.drop) this.state.values.drop(key);
		if (decision.keep) this.state.values.record(key, decision.keep);
		if (decision.runs && decision.changes) withChanges(json, decision.changes);
		return decision.runs;
	}

	/** A change of a topic not chosen (a creation): only its listed values are kept. */
	keepListed(change: LeadChange): void {
		if (this.watching) this.keep(change.id, change.lead, change.version);
	}

	/** Leads listed whose values are not kept yet (a first poll, fields newly chosen), but `except`. */
	keepFirstSeen(leads: ListedLead[], except: ReadonlySet<string>): void {
		if (!this.watching) return;
		for (const { id, version, lead } of leads)
			if (!except.has(id) && !this.state.values.get(leadKey(id))) this.keep(id, lead, version ?? 0);
	}

	drop(ids: string[]): void {
		for (const id of ids) this.state.values.drop(leadKey(id));
	}

	/** The sample of Fetch Test Event: its changes against the values kept (without `from` where none). */
	async addSampleChanges(id: string, json: IDataObject): Promise<void> {
		const lead = isRecord(json.lead) ? json.lead : undefined;
		if (!this.watching || !lead) return;
		const known = this.state.values.get(leadKey(id));
		const options = await this.compareOptions();
		const compared = compareWatchedFields(known?.row, lead, this.settings.fields, options);
		withChanges(json, { changes: compared.changes, changedFields: compared.changedFields });
	}

	write(nodeData: IDataObject): void {
		this.state.complete = true;
		POLL_WATCHED_VALUES.save(nodeData, this.state, this.settings.fields);
	}
}
