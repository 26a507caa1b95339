import type { IPollFunctions } from 'n8n-workflow';

/**
 * Keeps a baseline that n8n would otherwise drop. With durable poll cursors (n8n 2.36+,
 * N8N_POLLER_DURABLE_CURSORS_ENABLED) a poll writes its state to a staged copy that n8n
 * commits with the execution it starts, or after a poll that returns nothing, except the
 * activation's first poll: that one it never commits (n8n-core poll-trigger-executor.js
 * commits only when not `testingTrigger`). The baseline would then be taken again at the
 * first scheduled poll, and the changes made in between would never run.
 *
 * `__commitCursor` commits only what this poll staged (the cli's takeStagedCursor: nothing
 * when the copy is unchanged, so n8n's own commit after it finds nothing left). Where n8n
 * keeps no staged copy (durable cursors off, n8n 1.x) it does nothing or does not exist, and
 * n8n saves static data after the activation as before (docs/design/polling.md).
 */
export async function commitBaseline(context: IPollFunctions): Promise<void> {
	await context.__commitCursor?.();
}
