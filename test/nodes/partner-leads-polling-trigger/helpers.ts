import type { IDataObject } from 'n8n-workflow';

import { LEAD_TOPICS } from '../../../nodes/shared/topics';
import type { N8nHarness } from '../../harness/harness';
import { PollHost, type PollHostOptions } from '../../harness/polls';
import type { Lead, Simulator } from '../../simulator';

const realNow = Date.now.bind(Date);

/**
 * n8n's clock moved ahead by the test (the simulator's with it: one process), so minutes of
 * looks take moments; back to the machine's after each test.
 */
export function movableClock(): { later(ms: number): void } {
	let aheadMs = 0;
	beforeEach(() => {
		aheadMs = 0;
		jest.spyOn(Date, 'now').mockImplementation(() => realNow() + aheadMs);
	});
	afterEach(() => jest.restoreAllMocks());
	return { later: (ms) => void (aheadMs += ms) };
}

/** Polling trigger: no spacing of polls by list requests, unless a test asks for it. */
export const UNTHROTTLED = { options: { listRequestsPerMinute: 1_000_000 } };

/** A polling trigger on every event, unthrottled, with the test's parameters on top. */
export function pollingHost(
	harness: N8nHarness,
	parameters: IDataObject = {},
	options: PollHostOptions = {},
): PollHost {
	return new PollHost(
		harness,
		{ events: [...LEAD_TOPICS], ...UNTHROTTLED, ...parameters },
		options,
	);
}

/**
 * n8n stops after a poll, the portal changes (a create, an update, a delete), n8n starts again
 * with the saved static data: each change runs once, and a later poll runs nothing again.
 */
export async function expectRestartBetweenPollsLosesNothing(
	sim: Simulator,
	harness: N8nHarness,
): Promise<void> {
	const leads = sim.control.seedLeads(6);
	let poller = pollingHost(harness);
	await poller.activate();
	const first = portalLead(sim, 'first');
	await poller.poll();
	expect(poller.events()).toEqual([`lead/create ${first.id}`]);

	poller = poller.restarted();
	const second = portalLead(sim, 'second');
	sim.control.portalUpdateLead(leads[0].id, { value: 5 });
	sim.control.portalDeleteLead(leads[1].id);
	// created since the baseline, known only from the poll that ran its create
	sim.control.portalDeleteLead(first.id);
	await poller.activate('init');
	expect(poller.events().sort()).toEqual(
		[
			`lead/create ${second.id}`,
			`lead/update ${leads[0].id}`,
			`lead/delete ${leads[1].id}`,
			`lead/delete ${first.id}`,
		].sort(),
	);
	await poller.poll();
	expect(poller.executions).toHaveLength(1);
}

/** A lead created in the portal (not through the API), named for the test. */
export function portalLead(sim: Simulator, name: string, lastName = 'Test'): Lead {
	return sim.control.portalCreateLead({ firstName: name, lastName, email: `${name}@example.com` });
}
