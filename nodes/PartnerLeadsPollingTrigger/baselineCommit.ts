import type { IPollFunctions } from 'n8n-workflow';

/**
 * n8n 2.36+ (durable cursors) never commits the activation's first poll: the baseline would be
 * retaken and changes in between lost. Commits only this poll's staged state (no-op on n8n 1.x).
 */
export async function commitBaseline(context: IPollFunctions): Promise<void> {
	await context.__commitCursor?.();
}
