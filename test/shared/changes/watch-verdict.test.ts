import type { FieldChanges } from '../../../nodes/shared/changes/fieldChanges';
import { keptRowOf } from '../../../nodes/shared/changes/fieldChanges';
import type { ValueCondition } from '../../../nodes/shared/changes/watchedFields';
import {
	changedToOneOf,
	changesStartRun,
	judgeWatchedUpdate,
} from '../../../nodes/shared/changes/watchedFields';

/** Whether an updated lead runs, is only kept, or is stale: the "changes to" condition. */

const OPTIONS = { maxKeptChars: 64 };

function changesOf(entries: Record<string, { from?: unknown; to: unknown; toLabel?: string }>) {
	return {
		changes: entries,
		changedFields: Object.keys(entries),
	} as unknown as FieldChanges;
}

describe('changedToOneOf: a field changed to one of the values', () => {
	const cases: Array<[string, object, string[], boolean]> = [
		['to the value', { from: 'open', to: 'won' }, ['won'], true],
		['to another value', { from: 'open', to: 'lost' }, ['won'], false],
		['ignoring case and spaces', { from: 'open', to: 'Won' }, [' won '], true],
		['by its label', { from: 'a', to: 'sf', toLabel: 'Salesforce' }, ['salesforce'], true],
		['one of several', { from: 'open', to: 'won' }, ['lost', 'won'], true],
		['emptied', { from: 'won', to: null }, ['won'], false],
		['a number typed as text', { from: 1, to: 100 }, ['100'], true],
		['a yes/no field', { from: false, to: true }, ['true'], true],
		['from unknown to the value', { to: 'won' }, ['won'], true],
		['a multi-select gaining the value', { from: ['a'], to: ['a', 'won'] }, ['won'], true],
		['a multi-select that had it already', { from: ['won'], to: ['a', 'won'] }, ['won'], false],
		['a multi-select losing another value', { from: ['a', 'won'], to: ['won'] }, ['won'], false],
	];
	it.each(cases)('%s', (_what, change, wanted, expected) => {
		expect(changedToOneOf(change as never, wanted)).toBe(expected);
	});
});

describe('changesStartRun', () => {
	const won: ValueCondition = { fieldId: 'status', values: ['won'] };

	it('no condition: any watched change runs', () => {
		expect(changesStartRun(changesOf({ status: { from: 'a', to: 'b' } }), [])).toBe(true);
		expect(changesStartRun(changesOf({}), [])).toBe(false);
	});

	it('a field with a condition runs only when it changes to one of its values', () => {
		expect(changesStartRun(changesOf({ status: { from: 'open', to: 'won' } }), [won])).toBe(true);
		expect(changesStartRun(changesOf({ status: { from: 'open', to: 'lost' } }), [won])).toBe(false);
	});

	it('another watched field without a condition still runs on any change', () => {
		const changes = changesOf({ value: { from: 1, to: 2 } });
		expect(changesStartRun(changes, [won])).toBe(true);
	});

	it('several conditions on one field add up their values', () => {
		const lost: ValueCondition = { fieldId: 'status', values: ['lost'] };
		const changes = changesOf({ status: { from: 'open', to: 'lost' } });
		expect(changesStartRun(changes, [won, lost])).toBe(true);
	});
});

describe('judgeWatchedUpdate', () => {
	const settings = { fields: ['status'], conditions: [{ fieldId: 'status', values: ['won'] }] };
	const known = { ms: 1_000, row: keptRowOf({ status: 'open' }, ['status'], 64) };

	it('runs a change to a chosen value and keeps the new values at the new version', () => {
		const verdict = judgeWatchedUpdate(known, { status: 'won' }, 2_000, settings, OPTIONS);
		expect(verdict).toEqual({
			runs: true,
			changes: { changes: { status: { from: 'open', to: 'won' } }, changedFields: ['status'] },
			keep: { ms: 2_000, row: ['won'] },
		});
	});

	it('keeps a change to another value, without a run', () => {
		expect(judgeWatchedUpdate(known, { status: 'lost' }, 2_000, settings, OPTIONS)).toEqual({
			runs: false,
			keep: { ms: 2_000, row: ['lost'] },
		});
	});

	it('keeps an update of other fields, without a run', () => {
		const lead = { status: 'open', notes: 'typo fixed' };
		expect(judgeWatchedUpdate(known, lead, 2_000, settings, OPTIONS)).toEqual({
			runs: false,
			keep: { ms: 2_000, row: ['open'] },
		});
	});

	it('a read older than the values kept is stale: it neither runs nor keeps (the newer version was judged already)', () => {
		expect(judgeWatchedUpdate(known, { status: 'won' }, 999, settings, OPTIONS)).toEqual({
			runs: false,
		});
	});

	it('an unknown lead runs when a watched field has a chosen value (without `from`)', () => {
		expect(judgeWatchedUpdate(undefined, { status: 'won' }, 2_000, settings, OPTIONS)).toEqual({
			runs: true,
			changes: { changes: { status: { to: 'won' } }, changedFields: ['status'] },
			keep: { ms: 2_000, row: ['won'] },
		});
	});

	it('an unknown lead with another value is kept, without a run', () => {
		expect(judgeWatchedUpdate(undefined, { status: 'lost' }, 2_000, settings, OPTIONS)).toEqual({
			runs: false,
			keep: { ms: 2_000, row: ['lost'] },
		});
	});
});
