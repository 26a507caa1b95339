import { sleep } from 'n8n-workflow';

/**
 * When recovery looks (tests shorten these):
 * - firstCheckDelayMs: after start, lets webhooks take the service's pending retries first;
 * - settleMs: changes this recent may still arrive as deliveries: a follow-up check takes them;
 * - tickMs: how often a wait wakes, to stop promptly on deactivation;
 * - retryDelayMs: next try after a check that could not read the list;
 * - earlyAfterRuns, earlySpacingMs: a check comes early once this many runs were recorded since
 *   the last one, at most once per spacing: the ledger and the leads run since stay small
 *   (docs/design/static-data.md).
 */
export const RECOVERY_TIMING = {
	firstCheckDelayMs: 15_000,
	settleMs: 10_000,
	tickMs: 1_000,
	retryDelayMs: 5 * 60_000,
	earlyAfterRuns: 1_500,
	earlySpacingMs: 4 * 60_000,
};

/** When each change (`<id> <version>`) and gone lead was first listed, on n8n's clock. */
export interface FollowUps {
	changes: Map<string, number>;
	gone: Map<string, number>;
}

/**
 * Waits until the time, close or `early()`; wakes every tick as n8n 1.x's `sleep` ignores the
 * signal.
 */
export async function waitUntil(
	dueMs: number,
	closing: AbortSignal,
	early: () => boolean = () => false,
): Promise<void> {
	while (!closing.aborted && Date.now() < dueMs && !early())
		await sleep(Math.min(RECOVERY_TIMING.tickMs, dueMs - Date.now()), closing).catch(
			() => undefined,
		);
}
