import type { ITriggerFunctions } from 'n8n-workflow';

import { SKETCH_NAMES_UP_TO } from '../../shared/changes/idSketch';
import type { ListedLead } from '../../shared/changes/listedLead';
import { figure } from '../../shared/figures';
import type { RunRecords } from '../state/records';
import type { Gone, KeptListing } from '../state/knownLeadIds';
import type { RecoveryLedger } from '../state/recoveryLedger';
import { type FollowUps, RECOVERY_TIMING } from './timing';

/**
 * Missed deletes: known leads not listed now, each run once as `lead/delete` with no lead. A
 * lead gone moments ago may still arrive as a delivery, so it waits the settle first.
 */

/** The gone leads, split into those to run now and those left to a follow-up check. */
function goneLeads(
	ledger: RecoveryLedger,
	listed: ListedLead[],
	followUps: FollowUps,
	nowMs: number,
): { ready: string[]; deferred: string[]; incomplete: Gone | undefined } {
	const known = ledger.goneFrom(listed);
	const incomplete = known && !known.complete ? known : undefined;
	const gone = { ready: [] as string[], deferred: [] as string[], incomplete };
	const stillWaiting = new Map<string, number>();
	for (const id of known?.ids ?? []) {
		if (ledger.hasDeleted(id)) continue;
		const firstSeenMs = followUps.gone.get(id) ?? nowMs;
		if (nowMs - firstSeenMs < RECOVERY_TIMING.settleMs) {
			stillWaiting.set(id, firstSeenMs);
			gone.deferred.push(id);
		} else gone.ready.push(id);
	}
	followUps.gone = stillWaiting;
	return gone;
}

/** Hands missed deletes to the run queue and keeps this listing's ids (deferred ones too). */
export function recoverDeletes(
	context: ITriggerFunctions,
	records: RunRecords,
	listed: ListedLead[],
	followUps: FollowUps,
): { handedOver: number; deferred: number } {
	const { ledger } = records;
	const nowMs = Date.now();
	const { ready, deferred, incomplete } = goneLeads(ledger, listed, followUps, nowMs);
	if (incomplete)
		context.logger.warn(
			`Partner Referral Service Trigger: ${incomplete.unnamed > 0 ? `about ${incomplete.unnamed}` : 'some'} leads deleted since the last check could not be identified (in a large portal it tells apart up to ${figure(SKETCH_NAMES_UP_TO)} leads deleted or created between two checks without n8n receiving them), so their deletes do not run. Lower Missed Events Check Interval (Minutes) so that fewer changes fall between two checks`,
			{ node: context.getNode().name },
		);
	const timestamp = new Date(nowMs).toISOString();
	for (const id of ready) {
		// never found gone again: its run is in flight until it finished
		ledger.recordDeleted(id, nowMs);
		// keyed by the lead alone: a lead is deleted once
		records.recovered(`deleted\n${id}`, 'lead/delete', id, timestamp);
	}
	keepListedIds(context, ledger, listingOf(listed, deferred));
	return { handedOver: ready.length, deferred: deferred.length };
}

/**
 * A listing's ids (plus those still known) with the newest createdAt: a lead without one is
 * always taken out of a sketch, so it does not stop the others being told apart.
 */
export function listingOf(listed: ListedLead[], alsoKnown: string[] = []): KeptListing {
	let newestCreatedMs: number | undefined;
	for (const { createdMs } of listed)
		if (createdMs !== undefined)
			newestCreatedMs = Math.max(newestCreatedMs ?? createdMs, createdMs);
	return { ids: [...listed.map((lead) => lead.id), ...alsoKnown], newestCreatedMs };
}

/** Keeps the ids for the next check; says so in n8n's log when there are too many to keep. */
export function keepListedIds(
	context: ITriggerFunctions,
	ledger: RecoveryLedger,
	listing: KeptListing | undefined,
): void {
	if (ledger.rememberListing(listing)) return;
	context.logger.warn(
		'Partner Referral Service Trigger: too many leads to keep their IDs, leads deleted while n8n was down or unreachable are not recovered',
		{ node: context.getNode().name },
	);
}
