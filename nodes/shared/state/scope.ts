/**
 * Whose state: one trigger node of one workflow. Production and the editor's test URL are kept
 * apart (they get separate deliveries of the same events); only the events seen are kept for
 * test mode, everything else is production's alone.
 */
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
