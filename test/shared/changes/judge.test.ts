import type { KnownChanges } from '../../../nodes/shared/changes/judge';
import { baselineOf, judgeListing, watermarkAfter } from '../../../nodes/shared/changes/judge';
import type { ListedLead } from '../../../nodes/shared/changes/listedLead';

/** Judging a listing against what is known, case by case, without a service. */

const SINCE = 10_000;

function listed(id: string, version?: number, createdMs?: number): ListedLead {
	return { id, version, createdMs, lead: { id } };
}

/** Known: listening since SINCE, each `ran` entry the version of a lead that ran. */
function known(ran: Record<string, number> = {}, extra: Partial<KnownChanges> = {}): KnownChanges {
	return {
		sinceMs: SINCE,
		judgedUpToMs: SINCE,
		hasRun: (id, version) => ran[id] !== undefined && ran[id] >= version,
		knows: (id) => ran[id] !== undefined,
		...extra,
	};
}

describe('judgeListing: which listed lead is a change not run yet', () => {
	const cases: Array<[string, ListedLead, KnownChanges, string | undefined]> = [
		['at the watermark: ran or predates listening', listed('a', SINCE, 1), known(), undefined],
		['below it', listed('a', SINCE - 1, 1), known(), undefined],
		[
			'above the watermark but below what may have run',
			listed('a', SINCE + 5),
			known({}, { judgedUpToMs: SINCE + 5 }),
			undefined,
		],
		['without a version', listed('a', undefined, undefined), known(), undefined],
		['its version ran', listed('a', SINCE + 5, 1), known({ a: SINCE + 5 }), undefined],
		['a newer version ran', listed('a', SINCE + 5, 1), known({ a: SINCE + 9 }), undefined],
		['an older version ran', listed('a', SINCE + 5, 1), known({ a: SINCE + 1 }), 'lead/update'],
		[
			'created while listening, never run',
			listed('a', SINCE + 5, SINCE + 2),
			known(),
			'lead/create',
		],
		[
			'created before listening, changed since',
			listed('a', SINCE + 5, SINCE),
			known(),
			'lead/update',
		],
		['creation time unreadable', listed('a', SINCE + 5, undefined), known(), 'lead/update'],
		[
			'created while listening, but a version ran',
			listed('a', SINCE + 5, SINCE + 2),
			known({ a: SINCE + 3 }),
			'lead/update',
		],
		[
			'ids kept: not listed last time, whenever created',
			listed('a', SINCE + 5, 1),
			known({}, { listedIds: new Set(['b']) }),
			'lead/create',
		],
		[
			'ids kept: listed last time, even if created while listening',
			listed('a', SINCE + 5, SINCE + 2),
			known({}, { listedIds: new Set(['a']) }),
			'lead/update',
		],
		[
			'ids kept: not listed last time, but a version ran',
			listed('a', SINCE + 5, 1),
			known({ a: SINCE + 1 }, { listedIds: new Set() }),
			'lead/update',
		],
	];

	it.each(cases)('%s', (_name, lead, what, topic) => {
		const { changes } = judgeListing([lead], what);
		expect(changes.map((change) => change.topic)).toEqual(topic ? [topic] : []);
	});

	it('gives the changes oldest first, each with its lead, id and version', () => {
		const leads = [listed('c', SINCE + 30), listed('a', SINCE + 10), listed('b', SINCE + 20)];
		const { changes } = judgeListing(leads, known());
		expect(changes.map(({ id, version }) => `${id} ${version}`)).toEqual([
			`a ${SINCE + 10}`,
			`b ${SINCE + 20}`,
			`c ${SINCE + 30}`,
		]);
		expect(changes[0].lead).toBe(leads[1].lead);
	});

	it('gives the newest version listed, run or not, and none for a list without versions', () => {
		const leads = [listed('a', SINCE + 30), listed('b', SINCE - 5), listed('c')];
		expect(judgeListing(leads, known({ a: SINCE + 30 })).newestMs).toBe(SINCE + 30);
		expect(judgeListing([listed('c')], known()).newestMs).toBeUndefined();
		expect(judgeListing([], known()).newestMs).toBeUndefined();
	});
});

describe('watermarkAfter: the margin below the newest version, never lower', () => {
	it.each([
		['rises', 1_000, 5_000, 100, 4_900],
		['stays when the newest is within the margin of it', 1_000, 1_050, 100, 1_000],
		['stays for a list without versions', 1_000, undefined, 100, 1_000],
	])('%s', (_name, since, newest, margin, after) => {
		expect(watermarkAfter(since, newest, margin)).toBe(after);
	});
});

describe('baselineOf: what a new activation finds never runs', () => {
	it('starts the margin below the newest version and lists the leads at or above it', () => {
		const leads = [listed('old', 1_000), listed('edge', 4_900), listed('new', 5_000), listed('x')];
		expect(baselineOf(leads, 100)).toEqual({
			sinceMs: 4_900,
			present: [
				{ id: 'edge', version: 4_900 },
				{ id: 'new', version: 5_000 },
			],
		});
	});

	it('starts from 0 for a portal without lead times', () => {
		expect(baselineOf([listed('x')], 100)).toEqual({ sinceMs: 0, present: [] });
		expect(baselineOf([], 100)).toEqual({ sinceMs: 0, present: [] });
	});
});
