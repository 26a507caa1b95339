import type { IDataObject } from 'n8n-workflow';

import { decideWatched } from '../../../nodes/shared/changes/watchedFields';
import type { KeptLead } from '../../../nodes/shared/changes/fieldChanges';

/** The one Fields to Watch decision both triggers use, branch by branch. */

const settings = { fields: ['status'], conditions: [] };
const options = async () => await Promise.resolve({ maxKeptChars: 64 });
const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';

function lead(status: string, updatedAt: string): IDataObject {
	return { id: 'L1', status, updatedAt };
}
/** The values kept for the lead, written out: the status, the one field watched. */
function kept(status: string, at: string): KeptLead {
	return { ms: Date.parse(at), row: [status] };
}

describe('decideWatched', () => {
	it('a delete runs and drops the values', async () => {
		expect(
			await decideWatched(
				{ topic: 'lead/delete', lead: undefined, known: kept('open', T1), fallbackMs: 0 },
				settings,
				options,
			),
		).toEqual({ runs: true, drop: true });
	});

	it('a lead gone before it was read: its creation runs, an update does not, a replay does; values dropped', async () => {
		const gone = { lead: undefined, known: kept('open', T1), fallbackMs: 0 };
		const decide = async (topic: string, replay?: boolean) =>
			await decideWatched({ ...gone, topic, replay }, settings, options);
		expect(await decide('lead/create')).toEqual({ runs: true, drop: true });
		expect(await decide('lead/update')).toEqual({ runs: false, drop: true });
		expect(await decide('lead/update', true)).toEqual({ runs: true, drop: true });
	});

	it('a creation runs without changes and keeps its values', async () => {
		const decision = await decideWatched(
			{ topic: 'lead/create', lead: lead('open', T1), known: undefined, fallbackMs: 0 },
			settings,
			options,
		);
		expect(decision).toEqual({ runs: true, keep: kept('open', T1) });
	});

	it('an update: runs with its changes when a watched field changed; keeps only when not; nothing for an older read', async () => {
		const update = (status: string, at: string, known: KeptLead) =>
			decideWatched(
				{ topic: 'lead/update', lead: lead(status, at), known, fallbackMs: 0 },
				settings,
				options,
			);
		expect(await update('won', T2, kept('open', T1))).toEqual({
			runs: true,
			keep: kept('won', T2),
			changes: { changes: { status: { from: 'open', to: 'won' } }, changedFields: ['status'] },
		});
		expect(await update('open', T2, kept('open', T1))).toEqual({
			runs: false,
			keep: kept('open', T2),
		});
		expect(await update('won', T1, kept('open', T2))).toEqual({ runs: false });
	});

	it('a replay (a run again after a kill, the test event) runs with the changes from the values given, even unchanged', async () => {
		const decision = await decideWatched(
			{
				topic: 'lead/update',
				lead: lead('open', T2),
				known: kept('open', T1),
				fallbackMs: 0,
				replay: true,
			},
			settings,
			options,
		);
		expect(decision).toEqual({
			runs: true,
			keep: kept('open', T2),
			changes: { changes: {}, changedFields: [] },
		});
	});
});
