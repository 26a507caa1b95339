import { scopeOf } from './scope';

/**
 * Everything the package keeps in process memory beyond static data, listed in one place, so
 * that a deactivated trigger node leaves nothing behind in a long-running n8n that activates
 * and deactivates many workflows, and so the sizes can be reported. Each module registers what
 * it keeps when it is loaded; a source test (test/process-memory/registry.test.ts) finds every
 * module-level map in nodes/ and checks that it is registered here.
 *
 * Per trigger node (forgotten at its deactivation):
 *
 * | What (module) | Per | Until |
 * |---|---|---|
 * | events seen (PartnerLeadsTrigger/state/seenEvents.ts) | trigger node and mode | deactivation |
 * | deliveries in progress (state/seenEvents.ts) | trigger node and mode | the delivery ends |
 * | recovery ledger (state/recoveryLedger.ts) | trigger node | deactivation |
 * | changes left to a follow-up check (recovery/recover.ts) | trigger node | deactivation |
 * | runs in flight (state/runsInFlight.ts) | trigger node | deactivation |
 * | watched fields' values per lead (state/watchedLeads.ts) | trigger node | deactivation |
 * | the executor of the node's trigger() (runs/executor.ts) | trigger node | its trigger() closes |
 * | secret boxes (state/secretBox.ts) | trigger node and credential | deactivation |
 * | test-event handovers (delivery/testEvent.ts) | trigger node | taken, or 5 minutes |
 *
 * Per process, bounded (shared by every node of the package):
 *
 * | What (module) | Bound |
 * |---|---|
 * | access tokens (transport/tokenCache.ts) | 100 credentials |
 * | the editor's schema copies (schema/leadSchema.ts) | 50 credentials, 1 minute |
 * | credential problems (transport/credentialProblem.ts) | 200 messages |
 * | decrypted credential per execution (transport/request.ts) | goes with the execution (WeakMap) |
 * | executions refused despite a fresh token (transport/request.ts) | goes with the execution (WeakSet) |
 * | poll contexts that polled once (PartnerLeadsPollingTrigger/poll.ts) | goes with the context (WeakSet) |
 */
export interface NodeMemory {
	/** entries held now */
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

/** How many entries each process memory holds now (for diagnostics and tests). */
export function processMemorySizes(): Record<string, number> {
	return Object.fromEntries([...memories].map(([name, memory]) => [name, memory.size]));
}

/**
 * One kind of memory kept per production trigger node, keyed by its scope
 * (`workflowId:nodeId:production`), registered under `name` so that deactivation forgets it.
 */
export class ProductionNodeMemories<T> extends Map<string, T> implements NodeMemory {
	constructor(name: string) {
		super();
		registerNodeMemory(name, this);
	}

	forget(workflowId: string, nodeId: string): void {
		this.delete(scopeOf(workflowId, nodeId, 'production'));
	}

	/** The memory of this scope, made by `create` the first time it is asked for. */
	of(scope: string, create: () => T): T {
		let memory = this.get(scope);
		if (memory === undefined) {
			memory = create();
			this.set(scope, memory);
		}
		return memory;
	}
}

/** A cache the whole process shares (not per trigger node): bounded by its own rules. */
export interface ProcessCache {
	/** entries held now (undefined: a WeakMap, which cannot tell) */
	readonly size: number | undefined;
}

const caches = new Map<string, ProcessCache>();

/** Called once by each module that keeps a process-wide cache, when it is loaded. */
export function registerProcessCache(name: string, cache: ProcessCache): void {
	caches.set(name, cache);
}

/** The process-wide caches and their sizes (for diagnostics and tests). */
export function processCacheSizes(): Record<string, number | undefined> {
	return Object.fromEntries([...caches].map(([name, cache]) => [name, cache.size]));
}
