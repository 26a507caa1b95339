import type { INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { N8nHarness, TRIGGER_NODE_TYPE } from '../../harness/harness';
import { POLLING_TRIGGER_NODE_TYPE } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator/types';
import { NO_STATUS_YET } from '../../../nodes/shared/changes/statusesOnLeads';
import { LEADS_SAMPLED } from '../../../nodes/shared/leadSample';
import { watchSettingsOf } from '../../../nodes/shared/changes/watchedFields';
import { editorContext, pageSizeOf, requestsToRead, routeCount } from '../../support/fixtures';

/**
 * Only When Changed To > Value Names or IDs for Status, as n8n's backend loads it for the
 * editor (a LoadOptionsContext over a real Workflow, the lead list read over loopback HTTP from
 * the simulator): the values the portal's leads carry, since the schema does not list them.
 */

const TRIGGERS = [
	['Partner Referral Service Trigger', TRIGGER_NODE_TYPE],
	['Partner Referral Service Polling Trigger', POLLING_TRIGGER_NODE_TYPE],
] as const;

describe.each(TRIGGERS)('%s: the Status values Only When Changed To offers', (_name, type) => {
	let sim: Simulator;
	let harness: N8nHarness;

	beforeAll(async () => {
		sim = await startSimulator({ seed: 43 });
	});
	afterAll(async () => await sim.close());
	beforeEach(() => {
		sim.control.reset();
		harness = new N8nHarness(sim);
	});

	async function valuesFor(field: string): Promise<INodePropertyOptions[]> {
		const parameters: INodeParameters = {
			events: ['lead/update'],
			watchedFields: ['status', 'platform'],
			changedTo: { conditions: [{ field, values: [], otherValues: '' }] },
		};
		const { context, methods } = editorContext(
			harness,
			parameters,
			'parameters.changedTo.conditions[0].values',
			type,
		);
		return (await methods.loadOptions!.getWatchedFieldValues.call(
			context,
		)) as INodePropertyOptions[];
	}

	it("lists each status the portal's leads carry, once, sorted, with how many leads carry it", async () => {
		sim.control.seedLeads(
			['won', 'open', 'Closed Lost', 'open', 'won', 'proposal', 'open'].map((status) => ({
				status,
			})),
		);
		const carried = new Set(sim.control.listLeads().map((lead) => lead.status));
		expect(carried).toEqual(new Set(['won', 'open', 'Closed Lost', 'proposal']));

		const options = await valuesFor('status');
		expect(options).toEqual([
			{ name: 'Closed Lost', value: 'Closed Lost', description: 'Seen on 1 of your 7 leads' },
			{ name: 'open', value: 'open', description: 'Seen on 3 of your 7 leads' },
			{ name: 'proposal', value: 'proposal', description: 'Seen on 1 of your 7 leads' },
			{ name: 'won', value: 'won', description: 'Seen on 2 of your 7 leads' },
		]);
		expect(routeCount(sim, 'GET /leads')).toBeGreaterThan(0);
	});

	it('reads the portal anew each time the list opens: a status set in the portal since shows up', async () => {
		const [lead] = sim.control.seedLeads([{ status: 'open' }]);
		expect((await valuesFor('status')).map((option) => option.value)).toEqual(['open']);
		expect((await valuesFor('status'))[0].description).toBe('Seen on your only lead');

		sim.control.portalUpdateLead(lead.id, { status: 'Won (invoiced)' });
		sim.control.seedLeads([{ status: 'open' }]);
		expect(await valuesFor('status')).toEqual([
			{ name: 'open', value: 'open', description: 'Seen on 1 of your 2 leads' },
			{
				name: 'Won (invoiced)',
				value: 'Won (invoiced)',
				description: 'Seen on 1 of your 2 leads',
			},
		]);
	});

	it('an empty portal: no error, one entry that says what to do instead of an empty list', async () => {
		expect(sim.control.listLeads()).toEqual([]);
		const options = await valuesFor('status');
		expect(options).toEqual([NO_STATUS_YET]);
		expect(options[0].description).toMatch(/Type your portal's value under Other Values/);
		expect(routeCount(sim, 'GET /leads')).toBeGreaterThan(0);
	});

	it('reads a bounded number of leads, and says the counts are of the first ones listed', async () => {
		sim.control.seedLeads(1200);
		sim.control.resetStats();
		const options = await valuesFor('status');
		expect(LEADS_SAMPLED).toBeLessThan(1200);
		expect(routeCount(sim, 'GET /leads')).toBe(requestsToRead(LEADS_SAMPLED, pageSizeOf(sim)));
		const statuses = new Set(sim.control.listLeads().map((lead) => lead.status));
		expect(options.map((option) => option.value)).toEqual([...statuses].sort());
		expect(options.map((option) => option.description)).toEqual(
			[...statuses].map(() => `Seen on ${LEADS_SAMPLED} of the first 500 leads listed`),
		);
	});

	it("a schema that lists Status's values wins: they are offered and no lead is read", async () => {
		sim.control.seedLeads([{ status: 'open' }]);
		sim.control.setSchema([
			...sim.control.getSchema(),
			{
				fieldId: 'status',
				label: 'Status',
				type: 'picklist',
				required: false,
				creatable: false,
				updateable: false,
				picklistValues: [
					{ value: 'open', label: 'Open' },
					{ value: 'won', label: 'Won' },
				],
			},
		]);
		sim.control.resetStats();
		const listed = await valuesFor('status');
		expect(listed.map((option) => option.value)).toEqual(['open', 'won']);
		// labels where the service sends them (some send the values alone)
		expect(listed.map((option) => option.name.toLowerCase())).toEqual(['open', 'won']);
		expect(listed.some((option) => option.description !== undefined)).toBe(false);
		expect(routeCount(sim, 'GET /leads')).toBe(0);
	});

	it('other fields keep the values of the schema and read no lead', async () => {
		sim.control.seedLeads([{ status: 'open' }]);
		sim.control.resetStats();
		const platform = sim.control.getSchema().find((field) => field.fieldId === 'platform');
		const listed = await valuesFor('platform');
		expect(listed.length).toBeGreaterThan(0);
		expect(listed.map((option) => option.value)).toEqual(
			(platform?.picklistValues ?? []).map((option) => option.value),
		);
		expect(routeCount(sim, 'GET /leads')).toBe(0);
	});
});

describe('the entry shown for a portal without statuses', () => {
	it('adds no value when picked: the value typed under Other Values is the condition', () => {
		const parameters: Record<string, unknown> = {
			watchedFields: ['status'],
			changedTo: {
				conditions: [{ field: 'status', values: [NO_STATUS_YET.value], otherValues: 'won' }],
			},
		};
		const settings = watchSettingsOf({
			getNodeParameter: ((name: string, fallback: unknown) =>
				parameters[name] ?? fallback) as never,
		});
		expect(settings).toEqual({
			fields: ['status'],
			conditions: [{ fieldId: 'status', values: ['won'] }],
		});
	});
});
