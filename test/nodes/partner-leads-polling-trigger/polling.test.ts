import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Lead, Simulator } from '../../simulator';
import { expectRestartBetweenPollsLosesNothing, pollingHost, portalLead } from './helpers';

/**
 * The polling trigger inside n8n-core's PollContext, driven the way n8n drives it
 * (test/harness/polls.ts), against the simulator under each personality (page caps, order,
 * ids, whole-second timestamps). No waiting between a change and the poll that runs it:
 * changes are judged in the service's time (test/nodes/partner-leads-trigger/polling-clock.test.ts
 * for clocks apart).
 */

let sim: Simulator;
let harness: N8nHarness;

function created(name: string): Lead {
	return portalLead(sim, name);
}

function host(parameters: IDataObject = {}): PollHost {
	return pollingHost(harness, parameters);
}

function outputs(poller: PollHost): IDataObject[] {
	return poller.executions.flat().map((item) => item.json);
}

describe('PartnerLeadsPollingTrigger', () => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 42 });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => {
		await sim.close();
	});

	it('runs creates, updates and deletes between polls once each, and nothing the portal held at activation', async () => {
		const before = sim.control.seedLeads(25);
		const poller = host();
		await poller.activate();
		expect(poller.executions).toEqual([]);

		const fresh = created('fresh');
		sim.control.portalUpdateLead(before[3].id, { value: 11 });
		sim.control.portalDeleteLead(before[7].id);
		await poller.poll();
		expect(poller.errors).toEqual([]);
		expect(poller.events().sort()).toEqual(
			[
				`lead/create ${fresh.id}`,
				`lead/update ${before[3].id}`,
				`lead/delete ${before[7].id}`,
			].sort(),
		);
		const byTopic = Object.fromEntries(
			outputs(poller).map((json) => [(json.event as IDataObject).topic, json]),
		);
		expect(byTopic['lead/create']).toMatchObject({ polled: true, lead: { id: fresh.id } });
		expect(byTopic['lead/update']).toMatchObject({ polled: true, lead: { value: 11 } });
		expect(byTopic['lead/delete']).toMatchObject({ polled: true });
		expect(byTopic['lead/delete'].lead).toBeUndefined();

		await poller.poll();
		expect(poller.executions).toHaveLength(1);
	});

	it('runs a lead changed twice between polls once, with its newest state', async () => {
		const [lead] = sim.control.seedLeads(3);
		const poller = host();
		await poller.activate();
		sim.control.portalUpdateLead(lead.id, { value: 1 });
		sim.control.portalUpdateLead(lead.id, { value: 2 });
		await poller.poll();
		expect(poller.events()).toEqual([`lead/update ${lead.id}`]);
		expect(outputs(poller)[0]).toMatchObject({ lead: { value: 2 } });
	});

	it('loses nothing and runs nothing twice across a restart between polls', async () => {
		await expectRestartBetweenPollsLosesNothing(sim, harness);
	});

	it('repeats a poll that n8n never saved (a restart before the save) without running anything twice', async () => {
		sim.control.seedLeads(5);
		let poller = host();
		await poller.activate();
		const lead = created('lead');
		poller.store.frozen = true; // the process dies before n8n saves this poll's static data
		await poller.poll();
		expect(poller.events()).toEqual([`lead/create ${lead.id}`]);
		const execution = poller.executions.length;
		poller.store.frozen = false;

		// the execution of the lost poll never started either (n8n saves before it starts it)
		poller = poller.restarted();
		await poller.activate('init');
		expect(poller.events()).toEqual([`lead/create ${lead.id}`]);
		expect(execution).toBe(1);
	});

	it('shows the newest lead as a sample in manual mode, changing nothing', async () => {
		sim.control.seedLeads(12);
		await sleep(1_100);
		const newest = created('newest');
		const poller = host();
		await poller.activate();
		const saved = JSON.stringify(poller.store.load());
		sim.control.resetStats();

		const sample = await poller.fetchTestEvent();
		expect(sample).toHaveLength(1);
		expect(sample?.[0]).toHaveLength(1);
		expect(sample?.[0][0].json).toMatchObject({
			event: { id: newest.id, topic: 'lead/create' },
			polled: true,
			lead: { id: newest.id, firstName: 'newest' },
		});
		const writes = Object.keys(sim.control.stats().byRoute).filter(
			(route) => !route.startsWith('GET '),
		);
		expect(writes.filter((route) => route !== 'POST /oauth/token')).toEqual([]);
		expect(JSON.stringify(poller.store.load())).toBe(saved);
		expect(poller.executions).toEqual([]);
	});

	it('stops a poll cut short by rate limits with one message, and the next poll resumes', async () => {
		sim.control.seedLeads(30);
		const poller = host();
		await poller.activate();
		const lead = created('during-limit');
		sim.control.setFaults('GET /leads', { rate429: 1, retryAfterSeconds: 0 });
		sim.control.resetStats();
		await poller.poll();
		expect(poller.errors).toHaveLength(1);
		expect(poller.errors[0].message).toContain('too many requests');
		expect(poller.executions).toEqual([]);
		const answered429 = sim.control.stats().statusesByRoute['GET /leads']?.[429] ?? 0;
		expect(answered429).toBeGreaterThan(0);
		expect(answered429).toBeLessThanOrEqual(40);

		sim.control.clearFaults();
		await poller.poll();
		expect(poller.events()).toEqual([`lead/create ${lead.id}`]);
	});

	it('runs what it fetched when rate limits cut the fetching of full leads short, and the next poll the rest', async () => {
		sim.control.seedLeads(5);
		const poller = host();
		await poller.activate();
		const leads = ['one', 'two', 'three', 'four'].map((name) => created(name));
		sim.control.setFaults('GET /leads/:id', { rate429: 1, retryAfterSeconds: 0, passFirst: 2 });
		await poller.poll();
		expect(poller.errors).toEqual([]);
		expect(poller.executions).toHaveLength(1);
		const first = poller.events();
		expect(first).toHaveLength(2);

		sim.control.clearFaults();
		await poller.poll();
		await poller.poll();
		expect(poller.executions).toHaveLength(2);
		expect(poller.events().sort()).toEqual(leads.map((lead) => `lead/create ${lead.id}`).sort());
		expect(outputs(poller).every((json) => json.lead !== undefined)).toBe(true);
	});

	it('spaces polls by List Requests per Minute', async () => {
		sim.control.seedLeads(40);
		const poller = host({ options: { listRequestsPerMinute: 1 } });
		await poller.activate();
		sim.control.resetStats();
		created('waits');
		await poller.poll();
		expect(sim.control.stats().byRoute['GET /leads'] ?? 0).toBe(0);
		expect(poller.executions).toEqual([]);
	});
});
