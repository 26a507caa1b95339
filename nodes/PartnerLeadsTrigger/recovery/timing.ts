/**
 * When recovery looks, in one place (tests shorten these; n8n never changes them):
 * - firstCheckDelayMs: after n8n starts with the workflow active (or re-activates it), time
 *   for its webhooks to take the service's pending retries first;
 * - settleMs: changes this recent may still be on their way as deliveries, so a check leaves
 *   them to a follow-up check shortly after;
 * - tickMs: how often a wait wakes up to stop promptly on deactivation;
 * - retryDelayMs: the next try after a check that could not read the list.
 */
export const RECOVERY_TIMING = {
	firstCheckDelayMs: 15_000,
	settleMs: 10_000,
	tickMs: 1_000,
	retryDelayMs: 5 * 60_000,
};

/**
 * What waits for a follow-up check: when each change (`<id> <version>`) and each gone lead (its
 * id) was first listed, on n8n's clock.
 */
export interface FollowUps {
	changes: Map<string, number>;
	gone: Map<string, number>;
}
