/** Whose ledger and event memory: one trigger node of one workflow, production only. */
export function productionScope(context: {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
}): string {
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}:production`;
}
