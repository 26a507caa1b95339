import type { ListedLead } from '../../../nodes/shared/changes/listedLead';
import { newSweep } from '../../../nodes/PartnerLeadsPollingTrigger/pollState';
import { newestEndAfter, orderAfter } from '../../../nodes/PartnerLeadsPollingTrigger/sweepOrder';

/** Where a sweep says new leads appear: only an order every lead it met showed. */

function listed(createdMs: number | undefined, version = createdMs): ListedLead {
	return { id: `lead-${createdMs}-${version}`, createdMs, version, lead: {} };
}

/** The end a sweep over these slices (in list order) shows. */
function endShown(...slices: Array<Array<[created?: number, version?: number]>>): string {
	let order = newSweep(0).order;
	for (const slice of slices)
		order = orderAfter(
			order,
			slice.map(([created, version]) => listed(created, version ?? created)),
		);
	return newestEndAfter(order, '7:last').end;
}

describe('the newest end of the list, as a sweep showed it', () => {
	it.each([
		[
			'creation times rising, across slices',
			[
				[[1], [2]],
				[[2], [5]],
			],
			'end',
		],
		[
			'creation times falling',
			[
				[[9], [5]],
				[[5], [1]],
			],
			'start',
		],
		['ties only (one creation time)', [[[4], [4], [4]]], 'unknown'],
		['creation times up and down', [[[1], [5]], [[3]]], 'unknown'],
		[
			'by last change: versions rising, creation times not',
			[
				[
					[5, 10],
					[1, 20],
					[3, 30],
				],
			],
			'end',
		],
		['a creation time missing, versions not rising', [[[1], [undefined, 9], [5]]], 'unknown'],
		['an empty list', [[]], 'unknown'],
	] as const)('%s: %s', (_name, slices, end) => {
		expect(endShown(...(slices as unknown as Array<Array<[number?, number?]>>))).toBe(end);
	});

	it('keeps where the list ended only for the end, to read on from there', () => {
		let order = orderAfter(newSweep(0).order, [listed(1), listed(2)]);
		expect(newestEndAfter(order, '120:abc')).toEqual({ end: 'end', resumeToken: '120:abc' });
		order = orderAfter(newSweep(0).order, [listed(2), listed(1)]);
		expect(newestEndAfter(order, '120:abc')).toEqual({ end: 'start', resumeToken: undefined });
	});
});
