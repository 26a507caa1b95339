import type { IPollFunctions } from 'n8n-workflow';

/** When to stop fetching full leads: n8n 2.41+ drops a poll that runs past its timeout (45 s). */
export function pollDeadline(context: IPollFunctions, startedAtMs: number): number {
	const budgetMs = (context.getPollBudgetMs as (() => number) | undefined)?.call(context);
	return typeof budgetMs === 'number' && budgetMs > 0 ? startedAtMs + budgetMs : Infinity;
}
