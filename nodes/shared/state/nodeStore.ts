import { randomUUID } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { type NodeMemory, registerNodeMemory } from './processMemory';

/**
 * State across executions (docs/design/static-data.md). `StoreKind`: several writers; static data
 * is saved whole, so process memory keeps this process's writes. `StaticStore`: one writer.
 */

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

/** Memory per production trigger node, registered under `name` so deactivation forgets it. */
export class ProductionNodeMemories<T> extends Map<string, T> implements NodeMemory {
	constructor(name: string) {
		super();
		registerNodeMemory(name, this);
	}

	ofNode(workflowId: string, nodeId: string): T | undefined {
		return this.get(scopeOf(workflowId, nodeId, 'production'));
	}

	forget(workflowId: string, nodeId: string): void {
		this.delete(scopeOf(workflowId, nodeId, 'production'));
	}
}

/** Stored copies of other writers remembered as taken in (queue mode has several writers). */
const MERGED_COPIES_KEPT = 100;

export interface StoreRules<M> {
	key: string;
	/** its name in the list of process memory (processMemory.ts) */
	name: string;
	/** the modes kept apart; production alone unless said */
	modes?: ScopeMode[];
	create(): M;
	/** takes in a stored copy another writer saved */
	takeIn(memory: M, stored: IDataObject): void;
	/** the stored form of the memory, bounds applied */
	stored(memory: M): IDataObject;
}

/** One scope's memory in this process, with the writer stamp of its saves. */
class StampedMemory<M> {
	readonly id = randomUUID();

	saves = 0;

	readonly merged = new Set<string>();

	constructor(readonly memory: M) {}

	nextWriter(): string {
		this.saves++;
		return `${this.id}:${this.saves}`;
	}

	/** Whether a copy is new to this memory (and remembers it as taken in). */
	takesIn(writer: string): boolean {
		if (writer.startsWith(`${this.id}:`) || this.merged.has(writer)) return false;
		this.merged.add(writer);
		if (this.merged.size > MERGED_COPIES_KEPT)
			this.merged.delete(this.merged.values().next().value as string);
		return true;
	}
}

/** Deletes a store's key only when present: any delete marks static data changed, to be saved. */
function removeStored(nodeData: IDataObject, key: string): void {
	if (nodeData[key] !== undefined) delete nodeData[key];
}

function storedObject(raw: unknown): IDataObject | undefined {
	return raw !== null && typeof raw === 'object' && !Array.isArray(raw)
		? (raw as IDataObject)
		: undefined;
}

/** A memory made for a node's settings, and whether a memory kept fits them still. */
export interface MemoryShape<M> {
	create(): M;
	fits(memory: M): boolean;
}

/** Stores changed during `savingOnceAfter`'s work, saved once when it ends. */
let savesHeld: Set<NodeStore<unknown>> | undefined;

/**
 * Runs `work`, each store it saves written into static data once, when it ends: a check that
 * records thousands of leads would otherwise write every store whole once per lead. Static data
 * reaches the database only with n8n's next save, after this, so nothing is kept later.
 */
export function savingOnceAfter<T>(work: () => T): T {
	if (savesHeld) return work();
	const held = new Set<NodeStore<unknown>>();
	savesHeld = held;
	try {
		return work();
	} finally {
		savesHeld = undefined;
		for (const store of held) store.save();
	}
}

/** One store of one node, opened on the static data of the execution or delivery at hand. */
export class NodeStore<M> {
	constructor(
		private readonly rules: StoreRules<M>,
		private readonly stamped: StampedMemory<M>,
		private readonly nodeData: IDataObject,
	) {
		const stored = storedObject(nodeData[rules.key]);
		const writer = typeof stored?.writer === 'string' ? stored.writer : '';
		if (stored && stamped.takesIn(writer)) rules.takeIn(stamped.memory, stored);
	}

	get memory(): M {
		return this.stamped.memory;
	}

	/** Writes the memory into static data, to be saved whole by n8n. */
	save(): void {
		if (savesHeld) {
			savesHeld.add(this as NodeStore<unknown>);
			return;
		}
		this.nodeData[this.rules.key] = {
			...this.rules.stored(this.stamped.memory),
			writer: this.stamped.nextWriter(),
		};
	}

	/** Whether the stored copy is this memory's last save (nothing changed since). */
	get storedIsCurrent(): boolean {
		const stored = storedObject(this.nodeData[this.rules.key]);
		return stored?.writer === `${this.stamped.id}:${this.stamped.saves}`;
	}
}

/** A kind of store: its rules, and the memories of every node scope that uses it. */
export class StoreKind<M> {
	private readonly memories = new Map<string, StampedMemory<M>>();

	constructor(private readonly rules: StoreRules<M>) {
		const modes = rules.modes ?? ['production'];
		const memories = this.memories;
		registerNodeMemory(rules.name, {
			get size() {
				return memories.size;
			},
			forget: (workflowId, nodeId) => {
				for (const mode of modes) memories.delete(scopeOf(workflowId, nodeId, mode));
			},
		});
	}

	/** The store of this scope; a memory that no longer `fits` the node's `shape` starts anew. */
	open(nodeData: IDataObject, scope: string, shape?: MemoryShape<M>): NodeStore<M> {
		let stamped = this.memories.get(scope);
		if (!stamped || (shape && !shape.fits(stamped.memory))) {
			stamped = new StampedMemory(shape ? shape.create() : this.rules.create());
			this.memories.set(scope, stamped);
		}
		return new NodeStore(this.rules, stamped, nodeData);
	}

	/** A copy of what static data holds, apart from process memory (the editor's test event). */
	read(nodeData: IDataObject, shape?: MemoryShape<M>): M {
		const memory = shape ? shape.create() : this.rules.create();
		return new NodeStore(this.rules, new StampedMemory(memory), nodeData).memory;
	}

	/** Removes the stored copy (nothing is kept: e.g. no field is watched any more). */
	clear(nodeData: IDataObject): void {
		removeStored(nodeData, this.rules.key);
	}

	/** Forgets one scope's memory (e.g. no field is watched any more). */
	forget(scope: string): void {
		this.memories.delete(scope);
	}

	holds(scope: string): boolean {
		return this.memories.has(scope);
	}
}

export interface StaticStoreRules<T, W, A extends unknown[]> {
	key: string;
	/** its name in the state table (docs/ARCHITECTURE.md) */
	name: string;
	/** the value of a stored copy, or undefined when it holds none that is usable */
	read(stored: IDataObject, ...args: A): T | undefined;
	/** the stored form of a value, bounds applied; undefined: nothing to keep */
	stored(value: W, ...args: A): IDataObject | undefined;
}

/** A store with one writer at a time, in static data alone (see the kinds above). */
export class StaticStore<T, W = T, A extends unknown[] = []> {
	constructor(private readonly rules: StaticStoreRules<T, W, A>) {}

	read(nodeData: IDataObject, ...args: A): T | undefined {
		const stored = storedObject(nodeData[this.rules.key]);
		return stored ? this.rules.read(stored, ...args) : undefined;
	}

	/** Writes a fresh object (n8n saves only what was assigned), or removes the key. Returns it. */
	save(nodeData: IDataObject, value: W, ...args: A): IDataObject | undefined {
		const stored = this.rules.stored(value, ...args);
		if (stored) nodeData[this.rules.key] = stored;
		else this.clear(nodeData);
		return stored;
	}

	clear(nodeData: IDataObject): void {
		removeStored(nodeData, this.rules.key);
	}
}
