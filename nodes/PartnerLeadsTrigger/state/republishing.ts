/**
 * Trigger nodes that asked n8n to publish them again (emitError: a lost subscription, a refused
 * key), until their next trigger() starts: it carries on, nothing of a new activation. n8n retries
 * for up to a day (its backoff's ceiling), and n8n 1.x unsubscribes between failed tries (its
 * clean-up after a failed activation), so a node's memory is kept meanwhile and the marks stay
 * 25 hours unless taken up.
 */
const republishing = new Map<string, number>();
const REPUBLISHING = { keptMs: 25 * 60 * 60_000, atMost: 1_000 };

export function askedToPublishAgain(scope: string): void {
	republishing.delete(scope);
	republishing.set(scope, Date.now());
	for (const oldest of republishing.keys()) {
		if (republishing.size <= REPUBLISHING.atMost) break;
		republishing.delete(oldest);
	}
}

/** Whether n8n is to publish the node again after it reported an error (the mark stays). */
export function republishPending(scope: string): boolean {
	const askedAtMs = republishing.get(scope);
	return askedAtMs !== undefined && Date.now() - askedAtMs < REPUBLISHING.keptMs;
}

/** Whether this trigger() is n8n publishing the node again after it reported an error (taken up). */
export function resumesAfterReportedError(scope: string): boolean {
	const pending = republishPending(scope);
	republishing.delete(scope);
	return pending;
}
