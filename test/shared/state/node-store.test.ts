import type { IDataObject } from 'n8n-workflow';

import {
	savingOnceAfter,
	scopeOf,
	StaticStore,
	StoreKind,
} from '../../../nodes/shared/state/nodeStore';
import { forgetTriggerNode, processMemorySizes } from '../../../nodes/shared/state/processMemory';

/**
 * The state layer's rules, on a store of plain sets: what one process wrote survives another's
 * save of an older copy; a copy is taken in once (what was removed since does not come back);
 * every save stamps its writer; a deactivated node's memory goes.
 */

type Ids = Set<string>;

function kindNamed(name: string, modes?: Array<'production' | 'test'>): StoreKind<Ids> {
	return new StoreKind<Ids>({
		key: 'ids',
		name,
		modes,
		create: () => new Set(),
		takeIn(ids, stored) {
			for (const id of Array.isArray(stored.ids) ? stored.ids : []) ids.add(String(id));
		},
		stored: (ids) => ({ ids: [...ids] }),
	});
}

/** n8n's database: static data loaded and saved whole, as JSON. */
function database(): { load(): IDataObject; save(nodeData: IDataObject): void } {
	let saved = '{}';
	return {
		load: () => JSON.parse(saved) as IDataObject,
		save: (nodeData) => (saved = JSON.stringify(nodeData)),
	};
}

const SCOPE = scopeOf('wf', 'node', 'production');

describe('state layer: one store across processes', () => {
	it('two processes saving older copies in turn lose nothing: the next save writes the union', () => {
		const db = database();
		const first = kindNamed('storeTestFirst');
		const second = kindNamed('storeTestSecond');
		const stale = db.load();
		const a = db.load();
		const storeA = first.open(a, SCOPE);
		storeA.memory.add('x');
		storeA.save();
		db.save(a);
		// the second process loaded its copy before the first saved
		const storeB = second.open(stale, SCOPE);
		storeB.memory.add('y');
		storeB.save();
		db.save(stale);
		expect((db.load().ids as IDataObject).ids).toEqual(['y']);
		// the first process's next save takes in the second's copy and writes the union
		const again = db.load();
		const storeA2 = first.open(again, SCOPE);
		storeA2.memory.add('z');
		storeA2.save();
		const stored = again.ids as IDataObject;
		expect((stored.ids as string[]).sort()).toEqual(['x', 'y', 'z']);
		expect(String(stored.writer)).toMatch(/^[0-9a-f-]{36}:2$/);
	});

	it('takes a copy in once: what this process removed since does not come back from it', () => {
		const db = database();
		const other = kindNamed('storeTestOther');
		const mine = kindNamed('storeTestMine');
		const written = db.load();
		const otherStore = other.open(written, SCOPE);
		otherStore.memory.add('run-1');
		otherStore.save();
		db.save(written);
		const first = mine.open(db.load(), SCOPE);
		expect([...first.memory]).toEqual(['run-1']);
		first.memory.delete('run-1'); // finished
		// the same stored copy, read again by a later delivery of this process
		const reread = mine.open(db.load(), SCOPE);
		expect([...reread.memory]).toEqual([]);
	});

	it('knows whether the stored copy is its own last save, and reads a copy apart from process memory', () => {
		const kind = kindNamed('storeTestCurrent');
		const nodeData: IDataObject = {};
		const store = kind.open(nodeData, SCOPE);
		store.memory.add('a');
		expect(store.storedIsCurrent).toBe(false);
		store.save();
		expect(store.storedIsCurrent).toBe(true);
		nodeData.ids = { ids: ['a'], writer: 'someone-else:1' };
		expect(store.storedIsCurrent).toBe(false);
		const copy = kind.read({ ids: { ids: ['b'], writer: 'w:1' } });
		expect([...copy]).toEqual(['b']);
		expect([...kind.open({}, SCOPE).memory]).toEqual(['a']);
	});

	it('saving once after some work writes each store it saved once, when the work ends (also when it throws)', () => {
		const kind = kindNamed('storeTestHeld');
		const nodeData: IDataObject = {};
		const store = kind.open(nodeData, SCOPE);
		const writes: string[] = [];
		const watched = new Proxy(nodeData, {
			set(target, key, value: IDataObject) {
				writes.push(String(value.writer));
				return Reflect.set(target, key, value);
			},
		});
		const held = kind.open(watched, SCOPE);
		savingOnceAfter(() => {
			for (let n = 0; n < 1_000; n++) {
				held.memory.add(`lead-${n}`);
				held.save();
				// a store saving inside the work writes nothing yet; nested work saves with the outer
				savingOnceAfter(() => held.save());
			}
			expect(writes).toEqual([]);
		});
		expect(writes).toHaveLength(1);
		expect(((watched.ids as IDataObject).ids as string[]).length).toBe(1_000);
		expect(store.storedIsCurrent).toBe(true);
		expect(() =>
			savingOnceAfter(() => {
				held.memory.add('lead-after');
				held.save();
				throw new Error('a listing cut short');
			}),
		).toThrow('a listing cut short');
		expect(writes).toHaveLength(2);
		expect((watched.ids as IDataObject).ids).toContain('lead-after');
		held.save();
		expect(writes).toHaveLength(3);
	});

	it('a memory made for settings that changed starts anew', () => {
		const kind = kindNamed('storeTestShape');
		const shape = (tag: string) => ({
			create: () => new Set([tag]),
			fits: (ids: Ids) => ids.has(tag),
		});
		expect([...kind.open({}, SCOPE, shape('fields-a')).memory]).toEqual(['fields-a']);
		expect([...kind.open({}, SCOPE, shape('fields-a')).memory]).toEqual(['fields-a']);
		expect([...kind.open({}, SCOPE, shape('fields-b')).memory]).toEqual(['fields-b']);
	});

	it("forgets a deactivated node's memory, in every mode it keeps", () => {
		const kind = kindNamed('storeTestForget', ['production', 'test']);
		kind.open({}, scopeOf('wf', 'n1', 'production')).memory.add('p');
		kind.open({}, scopeOf('wf', 'n1', 'test')).memory.add('t');
		kind.open({}, scopeOf('wf', 'n2', 'production')).memory.add('other');
		expect(processMemorySizes().storeTestForget).toBe(3);
		forgetTriggerNode('wf', 'n1');
		expect(processMemorySizes().storeTestForget).toBe(1);
		expect(kind.holds(scopeOf('wf', 'n2', 'production'))).toBe(true);
	});
});

describe('state layer: a store with one writer (StaticStore)', () => {
	const kind = new StaticStore<Ids, Ids, [prefix: string]>({
		key: 'single',
		name: 'storeTestSingle',
		read: (stored, prefix) =>
			Array.isArray(stored.ids)
				? new Set(stored.ids.map((id) => `${prefix}${String(id)}`))
				: undefined,
		stored: (ids) => (ids.size > 0 ? { ids: [...ids] } : undefined),
	});

	it('reads what it saved through JSON, as n8n loads it, and nothing from an unusable copy', () => {
		const db = database();
		const nodeData = db.load();
		expect(kind.read(nodeData, '')).toBeUndefined();
		kind.save(nodeData, new Set(['a', 'b']), '');
		db.save(nodeData);
		expect(kind.read(db.load(), 'p:')).toEqual(new Set(['p:a', 'p:b']));
		expect(kind.read({ single: 'not an object' }, '')).toBeUndefined();
		expect(kind.read({ single: { ids: 7 } }, '')).toBeUndefined();
	});

	it('assigns a fresh object on each save (n8n saves only what was assigned), and keeps no process memory', () => {
		const nodeData: IDataObject = {};
		kind.save(nodeData, new Set(['a']), '');
		const first = nodeData.single;
		kind.save(nodeData, new Set(['a']), '');
		expect(nodeData.single).not.toBe(first);
		// another writer's copy is read as it is: nothing of this process is merged into it
		expect(kind.read({ single: { ids: ['z'] } }, '')).toEqual(new Set(['z']));
		expect(Object.keys(processMemorySizes())).not.toContain('storeTestSingle');
	});

	it('removes the key when there is nothing to keep, and on clear', () => {
		const nodeData: IDataObject = {};
		kind.save(nodeData, new Set(['a']), '');
		kind.save(nodeData, new Set(), '');
		expect(nodeData).toEqual({});
		kind.save(nodeData, new Set(['a']), '');
		kind.clear(nodeData);
		expect(nodeData).toEqual({});
	});
});
