import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Lead, Simulator } from '../../simulator';
import { expectRestartBetweenPollsLosesNothing, pollingHost, portalLead } from './helpers';

/**
 * The polling trigger when the service's clock and n8n's differ (the spec does not say they
 * agree): the simulator stamps its leads 10 minutes behind or ahead of the machine n8n runs
 * on. Changes are judged in the service's own time, so neither the offset nor the moment of a
 * change against a poll decides what runs.
 */

const TEN_MINUTES = 10 * 60_000;

let sim: Simulator;
let harness: N8nHarness;

function created(name: string): Lead {
	return portalLead(sim, name, 'Clock');
}

function host(parameters: IDataObject = {}): PollHost {
	return pollingHost(harness, parameters);
}

describe.each([
	['behind', -TEN_MINUTES],
	['ahead of', TEN_MINUTES],
])('PartnerLeadsPollingTrigger with the service clock 10 minutes %s n8n', (_, clockOffsetMs) => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 29, clockOffsetMs });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => {
		await sim.close();
	});

	it('runs nothing the portal held at activation, then each create, update and delete once', async () => {
		const before = sim.control.seedLeads(12);
		const poller = host();
		await poller.activate();
		await poller.poll();
		expect(poller.events()).toEqual([]);

		const fresh = created('fresh');
		sim.control.portalUpdateLead(before[2].id, { value: 7 });
		sim.control.portalDeleteLead(before[5].id);
		await poller.poll();
		await poller.poll();
		expect(poller.errors).toEqual([]);
		expect(poller.events().sort()).toEqual(
			[
				`lead/create ${fresh.id}`,
				`lead/update ${before[2].id}`,
				`lead/delete ${before[5].id}`,
			].sort(),
		);
	});

	it('runs a change made right after a poll once, at the next poll', async () => {
		const [lead] = sim.control.seedLeads(4);
		const poller = host();
		await poller.activate();
		await poller.poll();
		sim.control.portalUpdateLead(lead.id, { value: 1 });
		await poller.poll();
		sim.control.portalUpdateLead(lead.id, { value: 2 });
		const second = created('right-after');
		await poller.poll();
		await poller.poll();
		expect(poller.executions).toHaveLength(2);
		expect(poller.events().sort()).toEqual(
			[`lead/update ${lead.id}`, `lead/update ${lead.id}`, `lead/create ${second.id}`].sort(),
		);
		const values = poller.executions.map((items) =>
			items
				.filter((item) => (item.json.event as IDataObject).id === lead.id)
				.map((item) => (item.json.lead as IDataObject).value),
		);
		expect(values).toEqual([[1], [2]]);
	});

	it('loses nothing and runs nothing twice across a restart between polls', async () => {
		await expectRestartBetweenPollsLosesNothing(sim, harness);
	});
});
