import type { INodeExecutionData } from 'n8n-workflow';

import { registerNodeMemory } from '../../shared/state/processMemory';

/**
 * "Listen for test event": in manual mode n8n takes what `trigger()` emits, not the webhook's
 * output, so the webhook hands it over here (same process unless offloaded to workers).
 */

/** A handed-over event older than this is stale (its execution never came). */
const HANDOVER_TTL_MS = 5 * 60_000;

const handovers = new Map<string, { data: INodeExecutionData[][]; atMs: number }>();

// Not forgotten on deactivation: n8n may stop listening before the manual execution takes
// the event. Stale entries go with the next handover (HANDOVER_TTL_MS).
registerNodeMemory('testEventHandovers', {
	get size() {
		return handovers.size;
	},
	forget: () => undefined,
});

function keyOf(workflowId: string | undefined, nodeId: string): string {
	return `${workflowId ?? ''}:${nodeId}`;
}

export function handOverTestEvent(
	workflowId: string | undefined,
	nodeId: string,
	data: INodeExecutionData[][],
): void {
	const now = Date.now();
	for (const [key, entry] of handovers)
		if (now - entry.atMs > HANDOVER_TTL_MS) handovers.delete(key);
	handovers.set(keyOf(workflowId, nodeId), { data, atMs: now });
}

/** The test event handed over for this node, taken (it runs once), if any. */
export function takeTestEvent(
	workflowId: string | undefined,
	nodeId: string,
): INodeExecutionData[][] | undefined {
	const key = keyOf(workflowId, nodeId);
	const entry = handovers.get(key);
	handovers.delete(key);
	return entry && Date.now() - entry.atMs <= HANDOVER_TTL_MS ? entry.data : undefined;
}
