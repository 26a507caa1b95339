import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { IdSketch, MAX_SKETCH_ID_BYTES } from '../../../nodes/shared/changes/idSketch';
import {
	PACKED_LISTING_UP_TO_BYTES,
	packedBytes,
	packIds,
} from '../../../nodes/shared/changes/leadIds';
import { movableClock, pollingHost, portalLead } from './helpers';

/**
 * A portal whose ids take more than PACKED_LISTING_UP_TO_BYTES packed: the sweeps' ids are kept
 * as two fixed-size sketches, and a lead the last sweep listed and the next did not is asked for
 * before its delete runs. A sweep takes several looks (300 list requests a minute); the clock
 * moves a minute a look, the simulator's with it.
 */

const REQUESTS_PER_MINUTE = 300;
const MAX_LOOKS = 400;

let sim: Simulator;
let harness: N8nHarness;
const clock = movableClock();

function pollingState(poller: PollHost): IDataObject {
	return poller.nodeDataNow().polling as IDataObject;
}

function sweepEnded(poller: PollHost): boolean {
	const sweep = pollingState(poller).sweep as IDataObject;
	return sweep.resumeToken === undefined && sweep.listed === 0;
}

/** Looks a minute apart until `count` sweeps have ended (bounded); `between` runs after each look. */
async function sweeps(poller: PollHost, count: number, between: (look: number) => void = () => {}) {
	let ended = 0;
	for (let look = 0; ended < count; look++) {
		if (look >= MAX_LOOKS) throw new Error(`${count} sweeps did not end in ${MAX_LOOKS} looks`);
		clock.later(60_000);
		await poller.poll();
		if (sweepEnded(poller)) ended++;
		between(look);
	}
}

describe('PartnerLeadsPollingTrigger on a portal too large to keep its lead ids packed', () => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 65 });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => await sim.close());

	it('keeps the ids as sketches of a fixed size and runs each delete once, a lead listed twice or moved never', async () => {
		// just over the bound as the trigger packs them (the personality decides the ids' form)
		const ids: string[] = [];
		while (packedBytes(packIds(ids)) <= PACKED_LISTING_UP_TO_BYTES)
			ids.push(...sim.control.seedLeads(1_000).map((lead) => lead.id));
		const poller = pollingHost(harness, {
			options: { listRequestsPerMinute: REQUESTS_PER_MINUTE },
		});
		await poller.activate();
		if (!sweepEnded(poller)) await sweeps(poller, 1); // the baseline
		expect(poller.events()).toEqual([]);
		const sketchesBytes = () => JSON.stringify(pollingState(poller).sketches).length;
		expect(pollingState(poller).idsTracked).toBe(false);
		expect(sketchesBytes()).toBeLessThanOrEqual(2 * IdSketch.storedBytes(MAX_SKETCH_ID_BYTES));

		clock.later(60_000);
		const fresh = portalLead(sim, 'fresh');
		const gone = [ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 1]];
		for (const id of gone) sim.control.portalDeleteLead(id);
		// changed after the sweep passed it: a list ordered by last change lists it again
		const moved = ids[1];
		await sweeps(poller, 3, (look) => {
			if (look === 1) sim.control.portalUpdateLead(moved, { value: 9 });
		});
		expect(poller.errors).toEqual([]);
		expect(poller.events().sort()).toEqual(
			[
				`lead/create ${fresh.id}`,
				`lead/update ${moved}`,
				...gone.map((id) => `lead/delete ${id}`),
			].sort(),
		);
		expect(pollingState(poller).maybeGone).toBeUndefined();

		// the portal grows by a thousand leads: each is a create, and the sketches do not grow
		const before = sketchesBytes();
		const added = sim.control.seedLeads(1_000);
		const events = poller.events().length;
		await sweeps(poller, 2);
		expect(poller.events().slice(events).sort()).toEqual(
			added.map((lead) => `lead/create ${lead.id}`).sort(),
		);
		expect(sketchesBytes()).toBe(before);
	}, 300_000);
});
