import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { leadKey } from '../../../nodes/shared/changes/versions';
import { WatchedValues } from '../../../nodes/shared/changes/watchedValues';
import { pollingHost, portalLead } from './helpers';

/**
 * Fields to Watch on the polling trigger: each poll runs only the leads where a watched field
 * changed since the last poll, with its old and new value, and keeps the new values with its
 * state (saved by n8n with the execution it starts).
 */

let sim: Simulator;
let harness: N8nHarness;

function changesOf(poller: PollHost): unknown[] {
	return poller.executions.flat().map((item) => item.json.changes);
}

/** Whether static data holds watched values for the lead, read back as a fresh process would. */
function keepsValuesOf(poller: PollHost, leadId: string): boolean {
	const watched = poller.store.nodeData(poller.node.name).watched as IDataObject | undefined;
	const values = new WatchedValues((watched?.fields ?? []) as string[]);
	values.merge(watched);
	return values.get(leadKey(leadId)) !== undefined;
}

describe('PartnerLeadsPollingTrigger with Fields to Watch', () => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 42 });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => {
		await sim.close();
	});

	it('runs a status change once with its old and new value, and a notes change not at all', async () => {
		const [lead, other] = sim.control.seedLeads([{ status: 'open' }, { status: 'open' }]);
		const poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		sim.control.portalUpdateLead(lead.id, { status: 'won' });
		sim.control.portalUpdateLead(other.id, { notes: 'typo fixed' });
		await poller.poll();
		expect(poller.errors).toEqual([]);
		expect(poller.events()).toEqual([`lead/update ${lead.id}`]);
		expect(poller.executions[0][0].json).toMatchObject({
			polled: true,
			changes: { status: { from: 'open', to: 'won' } },
			changedFields: ['status'],
			lead: { status: 'won' },
		});
		await poller.poll();
		expect(poller.executions).toHaveLength(1);
	});

	it('a lead changed twice between polls runs once, from the value kept to the newest; changed and back, not at all', async () => {
		const [twice, back] = sim.control.seedLeads([{ status: 'open' }, { status: 'open' }]);
		const poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		sim.control.portalUpdateLead(twice.id, { status: 'proposal' });
		sim.control.portalUpdateLead(twice.id, { status: 'won' });
		sim.control.portalUpdateLead(back.id, { status: 'won' });
		sim.control.portalUpdateLead(back.id, { status: 'open' });
		await poller.poll();
		expect(poller.events()).toEqual([`lead/update ${twice.id}`]);
		expect(changesOf(poller)).toEqual([{ status: { from: 'open', to: 'won' } }]);
	});

	it('Only When Changed To, with values from the schema: a picklist change to another value runs nothing', async () => {
		const [lead] = sim.control.seedLeads([{ platform: 'hubspot' }]);
		const conditions = [{ field: 'platform', values: ['salesforce'] }];
		const poller = pollingHost(harness, {
			watchedFields: ['platform'],
			changedTo: { conditions },
		});
		await poller.activate();
		sim.control.portalUpdateLead(lead.id, { platform: 'pipedrive' });
		await poller.poll();
		expect(poller.executions).toHaveLength(0);
		sim.control.portalUpdateLead(lead.id, { platform: 'salesforce' });
		await poller.poll();
		expect(changesOf(poller)).toEqual([
			expect.objectContaining({
				platform: expect.objectContaining({ from: 'pipedrive', to: 'salesforce' }),
			}),
		]);
	});

	it('number, multi-select and yes/no custom fields', async () => {
		const fields = ['employeeCount', 'interests', 'isEnterprise'];
		const [lead] = sim.control.seedLeads([
			{ customFields: { employeeCount: 10, interests: ['analytics'], isEnterprise: false } },
		]);
		const poller = pollingHost(harness, { watchedFields: fields });
		await poller.activate();
		sim.control.portalUpdateLead(lead.id, {
			customFields: {
				employeeCount: 12,
				interests: ['analytics', 'automation'],
				isEnterprise: true,
			},
		});
		await poller.poll();
		expect(changesOf(poller)).toEqual([
			expect.objectContaining({
				employeeCount: { from: 10, to: 12 },
				interests: expect.objectContaining({
					from: ['analytics'],
					to: ['analytics', 'automation'],
				}),
				isEnterprise: { from: false, to: true },
			}),
		]);
	});

	it('a new lead runs as a create without changes, and its first update from its values then', async () => {
		const poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		const lead = portalLead(sim, 'fresh');
		await poller.poll();
		expect(poller.executions[0][0].json.changes).toBeUndefined();
		sim.control.portalUpdateLead(lead.id, { status: 'won' });
		await poller.poll();
		expect(changesOf(poller)).toEqual([undefined, { status: { from: 'active', to: 'won' } }]);
	});

	it('with Lead Updated only, a new lead starts nothing and keeps its values', async () => {
		const poller = pollingHost(harness, { events: ['lead/update'], watchedFields: ['status'] });
		await poller.activate();
		const lead = portalLead(sim, 'quiet');
		await poller.poll();
		expect(poller.executions).toHaveLength(0);
		sim.control.portalUpdateLead(lead.id, { status: 'won' });
		await poller.poll();
		expect(changesOf(poller)).toEqual([{ status: { from: 'active', to: 'won' } }]);
	});

	it('a status change made while n8n was down runs at the first poll after, with its `from`', async () => {
		const [lead] = sim.control.seedLeads([{ status: 'open' }]);
		let poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		poller = poller.restarted();
		sim.control.portalUpdateLead(lead.id, { status: 'won' });
		await poller.activate('init');
		expect(changesOf(poller)).toEqual([{ status: { from: 'open', to: 'won' } }]);
	});

	it('a deleted lead runs its delete, and its values are dropped', async () => {
		const [lead] = sim.control.seedLeads([{ status: 'open' }]);
		const poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		expect(keepsValuesOf(poller, lead.id)).toBe(true);
		sim.control.portalDeleteLead(lead.id);
		await poller.poll();
		expect(poller.events()).toEqual([`lead/delete ${lead.id}`]);
		expect(keepsValuesOf(poller, lead.id)).toBe(false);
	});

	it('Fetch Test Event shows the changes against the values kept', async () => {
		const [lead] = sim.control.seedLeads([{ status: 'open' }]);
		const poller = pollingHost(harness, { watchedFields: ['status'] });
		await poller.activate();
		sim.control.portalUpdateLead(lead.id, { status: 'won' });
		const sample = await poller.fetchTestEvent();
		expect(sample?.[0][0].json).toMatchObject({
			event: { id: lead.id },
			changes: { status: { from: 'open', to: 'won' } },
		});
	});
});
