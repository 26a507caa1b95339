import { sleep } from 'n8n-workflow';

/**
 * When recovery looks (tests shorten these):
 * - firstCheckDelayMs: after start, lets webhooks take the service's pending retries first;
 * - settleMs: changes this recent may still arrive as deliveries: a follow-up check takes them;
 * - tickMs: how often a wait wakes, to stop promptly on deactivation;
 * - retryDelayMs: next try after a check that could not read the list.
 */
export const RECOVERY_TIMING = {
	firstCheckDelayMs: 15_000,
	settleMs: 10_000,
	tickMs: 1_000,
	retryDelayMs: 5 * 60_000,
};

/** When each change (`<id> <version>`) and gone lead was first listed, on n8n's clock. */
export interface FollowUps {
	changes: Map<string, number>;
	gone: Map<string, number>;
}

/** Waits until the time or close; wakes every tick as n8n 1.x's `sleep` ignores the signal. */
export async function waitUntil(dueMs: number, closing: AbortSignal): Promise<void> {
	while (!closing.aborted && Date.now() < dueMs)
		await sleep(Math.min(RECOVERY_TIMING.tickMs, dueMs - Date.now()), closing).catch(
			() => undefined,
		);
}
