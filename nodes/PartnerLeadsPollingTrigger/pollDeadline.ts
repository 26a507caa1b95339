import type { IPollFunctions } from 'n8n-workflow';

/**
 * When a poll should stop fetching full leads (n8n's clock, epoch ms), leaving the rest to the
 * next poll. n8n 2.41's scheduler (N8N_SCHEDULER_POLL_TRIGGERS_ENABLED) abandons a poll after
 * N8N_SCHEDULER_POLL_TIMEOUT (45 s by default) and keeps nothing of it; `getPollBudgetMs` is
 * the time it allows, less a margin. Without it (n8n 1.x) a poll may take as long as it needs.
 */
export function pollDeadline(context: IPollFunctions, startedAtMs: number): number {
	const budgetMs = (context.getPollBudgetMs as (() => number) | undefined)?.call(context);
	return typeof budgetMs === 'number' && budgetMs > 0 ? startedAtMs + budgetMs : Infinity;
}
