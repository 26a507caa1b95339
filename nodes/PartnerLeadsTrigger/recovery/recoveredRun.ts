import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import type { LeadChange } from '../../shared/changes/judge';
import { fetchesFullLead, watchSettingsOf, withChanges } from '../../shared/changes/watchedFields';
import { isRecord } from '../../shared/transport/record';
import { selectedTopics } from '../../shared/topics';
import type { RunExecutor } from '../runs/executor';
import { nodeScope } from '../../shared/state/scope';
import { packKeptLead, WatchedLeads } from '../state/watchedLeads';
import { applyWatchedOutcome, watchedOutcome } from '../runs/watchedOutcome';

/**
 * A missed change found by listing, started as a run of the trigger, or with watched fields
 * only kept (nothing watched changed).
 */

/** What the recovery's runs need besides the listing, Fields to Watch included. */
export function recoveryRunsOf(context: ITriggerFunctions) {
	const settings = watchSettingsOf(context);
	const nodeData = context.getWorkflowStaticData('node');
	return {
		settings,
		watched: new WatchedLeads(nodeData, nodeScope(context), settings.fields),
		topics: selectedTopics(context.getNodeParameter('events', [])),
		fullLead: fetchesFullLead(context),
	};
}

/**
 * Starts the run of a missed change, unless watched fields say it starts none (nothing watched
 * changed, or not to a chosen value; a creation not chosen): then its values are kept.
 */
export async function startRecoveredRun(
	context: ITriggerFunctions,
	recovering: ReturnType<typeof recoveryRunsOf> & { executor: RunExecutor },
	candidate: LeadChange,
	{ json, version, key }: { json: IDataObject; version: number; key: string },
): Promise<boolean> {
	const { watched, settings, topics } = recovering;
	const watch = await watchedOutcome(context, watched, settings, {
		leadId: candidate.id,
		topic: candidate.topic,
		lead: isRecord(json.lead) ? json.lead : undefined,
		fallbackMs: version,
		selected: topics.includes(candidate.topic),
	});
	if (!watch.start) {
		applyWatchedOutcome(watched, candidate.id, watch);
		return false;
	}
	if (watch.changes) withChanges(json, watch.changes);
	void recovering.executor.start({
		run: {
			key,
			topic: candidate.topic,
			leadId: candidate.id,
			timestamp: String((json.event as IDataObject).timestamp),
			origin: 'recovered',
			watchedBefore: packKeptLead(watch.record?.before),
		},
		json,
		version: { ms: version, exact: true },
		watch: watch.record,
	});
	return true;
}
