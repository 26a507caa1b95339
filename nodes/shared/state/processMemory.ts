/** Registry of process memory, so deactivation forgets a node's (list: docs/ARCHITECTURE.md). */
export interface NodeMemory {
	readonly size: number;
	/** forgets what is kept for one trigger node; its subscriptions are gone */
	forget(workflowId: string, nodeId: string): void;
}

const memories = new Map<string, NodeMemory>();

/** Called once by each module that keeps process memory, when it is loaded. */
export function registerNodeMemory(name: string, memory: NodeMemory): void {
	memories.set(name, memory);
}

/** After deactivation: the node's subscriptions and their secrets are gone, so is what served them. */
export function forgetTriggerNode(workflowId: string | undefined, nodeId: string): void {
	for (const memory of memories.values()) memory.forget(workflowId ?? '', nodeId);
}

/** How many entries each process memory holds now, logged at debug level on unsubscribing. */
export function processMemorySizes(): Record<string, number> {
	return Object.fromEntries([...memories].map(([name, memory]) => [name, memory.size]));
}
