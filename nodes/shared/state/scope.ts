/** Whose state: one trigger node; production and test URL are kept apart (separate deliveries). */
export type ScopeMode = 'production' | 'test';

export function nodeScope(
	context: { getWorkflow(): { id?: string }; getNode(): { id: string } },
	mode: ScopeMode = 'production',
): string {
	return scopeOf(context.getWorkflow().id ?? '', context.getNode().id, mode);
}

export function scopeOf(workflowId: string, nodeId: string, mode: ScopeMode): string {
	return `${workflowId}:${nodeId}:${mode}`;
}
