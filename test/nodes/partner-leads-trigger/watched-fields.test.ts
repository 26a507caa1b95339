import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { TriggerHost } from '../../harness/webhooks';
import type { Lead } from '../../simulator';
import { leadKey } from '../../../nodes/shared/changes/versions';
import { WatchedValues } from '../../../nodes/shared/changes/watchedValues';
import { forgetTriggerNode } from '../../../nodes/shared/state/processMemory';
import type { Setup } from './helpers';
import { ALL_TOPICS, setUp, subscriptionsAt } from './helpers';
import { eventually, quickTimings, startN8n, stopN8n } from './recovery-helpers';

/**
 * Fields to Watch on the webhook trigger, through n8n-core's engine and the simulator's signed
 * deliveries: only a change of a watched field starts the workflow, with its old and new value;
 * the same from live deliveries, recoveries after downtime, re-runs after a hard kill and the
 * editor's test event.
 */

type Change = { from?: unknown; to: unknown; fromLabel?: unknown; toLabel?: unknown };
type Output = {
	event: { id: string; topic: string };
	lead?: IDataObject;
	changes?: Record<string, Change>;
	changedFields?: string[];
	recovered?: boolean;
	recoveryReason?: string;
};

function outputs(host: TriggerHost): Output[] {
	return host.executions.map((execution) => execution.items[0].json as unknown as Output);
}

/**
 * A change in the portal. Where the service's times have whole seconds, two changes of a lead
 * within one second are one event to the trigger (the same topic, id and time): a second apart.
 */
async function update(setup: Setup, lead: Lead, patch: Partial<Lead>): Promise<void> {
	if (setup.sim.personality.timestamps === 'seconds')
		await sleep(1_000 - (Date.now() % 1_000) + 20);
	setup.sim.control.portalUpdateLead(lead.id, patch);
}

async function delivered(setup: Setup): Promise<void> {
	await setup.sim.control.waitForDeliveries(20_000);
	await setup.host.settle();
	expect(setup.host.crashes).toEqual([]);
	expect(setup.host.statuses()[500]).toBeUndefined();
}

function watching(fields: string[], extra: INodeParameters = {}): INodeParameters {
	return { events: ALL_TOPICS, watchedFields: fields, ...extra };
}

/** The watched values static data holds for a lead, read back as a fresh process would. */
function storedEntryOf(setup: Setup, leadId: string): string | undefined {
	const watched = setup.host.store.nodeData(setup.host.node.name).watched as IDataObject;
	const values = new WatchedValues((watched?.fields ?? []) as string[]);
	values.merge(watched);
	const kept = values.get(leadKey(leadId));
	return kept && JSON.stringify(kept.row);
}

describe('PartnerLeadsTrigger with Fields to Watch', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10 });

	it('a status change runs once with its old and new value; a notes change runs nothing and is acknowledged', async () => {
		setup = await setUp(watching(['status']));
		const [lead] = setup.sim.control.seedLeads([{ status: 'open' }]);
		await setup.host.activate();
		await update(setup, lead, { status: 'won' });
		await delivered(setup);
		await update(setup, lead, { notes: 'typo fixed' });
		await delivered(setup);

		expect(outputs(setup.host)).toEqual([
			expect.objectContaining({
				event: expect.objectContaining({ id: lead.id, topic: 'lead/update' }),
				changes: { status: { from: 'open', to: 'won' } },
				changedFields: ['status'],
				lead: expect.objectContaining({ status: 'won' }),
			}),
		]);
		expect(setup.sim.control.deliveries().every((attempt) => attempt.acknowledged)).toBe(true);
	});

	it('each field type: text, number, picklist (with labels), multi-select, date, yes/no, custom fields', async () => {
		const fields = [
			'closeDate',
			'firstName',
			'industry',
			'interests',
			'isEnterprise',
			'platform',
			'value',
		];
		setup = await setUp(watching(fields));
		const [lead] = setup.sim.control.seedLeads([
			{
				firstName: 'Ada',
				value: 100,
				platform: 'hubspot',
				closeDate: '2025-06-30',
				customFields: { industry: 'saas', interests: ['analytics'], isEnterprise: false },
			},
		]);
		await setup.host.activate();
		await update(setup, lead, {
			firstName: 'Grace',
			value: 250,
			platform: 'salesforce',
			closeDate: '2025-07-31',
			customFields: {
				industry: 'fintech',
				interests: ['security', 'analytics'],
				isEnterprise: true,
			},
		});
		await delivered(setup);

		const [output] = outputs(setup.host);
		expect(output.changedFields).toEqual(fields);
		expect(output.changes).toMatchObject({
			closeDate: { from: '2025-06-30', to: '2025-07-31' },
			firstName: { from: 'Ada', to: 'Grace' },
			industry: { from: 'saas', to: 'fintech', toLabel: expect.any(String) },
			interests: { from: ['analytics'], to: ['analytics', 'security'] },
			isEnterprise: { from: false, to: true },
			platform: { from: 'hubspot', to: 'salesforce', toLabel: expect.any(String) },
			value: { from: 100, to: 250 },
		});
		// the schema's labels where it has them (some services send the values only)
		expect(['Salesforce', 'salesforce']).toContain(output.changes?.platform.toLabel);
	});

	it('a value the service writes again in another form is no change (by its schema type); a real change runs from the value kept', async () => {
		setup = await setUp(watching(['closeDate', 'interests', 'value']));
		const [lead] = setup.sim.control.seedLeads([
			{
				value: 100,
				closeDate: '2025-06-30',
				customFields: { interests: ['analytics', 'security'] },
			},
		]);
		await setup.host.activate();
		// currency as text, the date as a date-time of that day, the multi-select in another order
		await update(setup, lead, {
			value: '100' as unknown as number,
			closeDate: '2025-06-30T00:00:00.000Z',
			customFields: { interests: ['security', 'analytics'] },
		});
		await delivered(setup);
		expect(setup.host.executions).toHaveLength(0);
		expect(setup.sim.control.deliveries().every((attempt) => attempt.acknowledged)).toBe(true);

		await update(setup, lead, { value: 120 });
		await delivered(setup);
		expect(outputs(setup.host).map((output) => output.changes)).toEqual([
			{ value: { from: '100', to: 120 } },
		]);
	});

	it('Only When Changed To: a change to another value runs nothing, the next one to a chosen value runs from it', async () => {
		const conditions = [{ field: 'status', values: [], otherValues: 'Won, closed won' }];
		setup = await setUp(watching(['status', 'value'], { changedTo: { conditions } }));
		const [lead] = setup.sim.control.seedLeads([{ status: 'open', value: 1 }]);
		await setup.host.activate();
		await update(setup, lead, { status: 'lost' });
		await delivered(setup);
		expect(setup.host.executions).toHaveLength(0);
		await update(setup, lead, { status: 'won' });
		await delivered(setup);
		// a watched field without a condition still runs on any change
		await update(setup, lead, { value: 2 });
		await delivered(setup);

		expect(outputs(setup.host).map((output) => output.changes)).toEqual([
			{ status: { from: 'lost', to: 'won' } },
			{ value: { from: 1, to: 2 } },
		]);
	});

	it('a new lead runs as a create without changes; its values are kept for its first update', async () => {
		setup = await setUp(watching(['status']));
		await setup.host.activate();
		const lead = setup.sim.control.portalCreateLead({ firstName: 'New', status: 'open' });
		await delivered(setup);
		await update(setup, lead, { status: 'won' });
		await delivered(setup);

		const [created, updated] = outputs(setup.host);
		expect(created.event.topic).toBe('lead/create');
		expect(created.changes).toBeUndefined();
		expect(updated.changes).toEqual({ status: { from: 'open', to: 'won' } });
	});

	it('with Lead Updated only, creations are still subscribed to: a new lead keeps its values and starts nothing', async () => {
		setup = await setUp({ events: ['lead/update'], watchedFields: ['status'] });
		await setup.host.activate();
		expect(
			subscriptionsAt(setup.sim, setup.host.webhookUrl())
				.map((subscription) => subscription.topic)
				.sort(),
		).toEqual(['lead/create', 'lead/update']);
		const lead = setup.sim.control.portalCreateLead({ firstName: 'Quiet', status: 'open' });
		await delivered(setup);
		expect(setup.host.executions).toHaveLength(0);
		await update(setup, lead, { notes: 'not watched' });
		await delivered(setup);
		expect(setup.host.executions).toHaveLength(0);
		await update(setup, lead, { status: 'won' });
		await delivered(setup);
		expect(outputs(setup.host).map((output) => output.changes)).toEqual([
			{ status: { from: 'open', to: 'won' } },
		]);
	});

	it('a deleted lead: its delete runs, and its values are dropped', async () => {
		setup = await setUp(watching(['status']));
		const [lead] = setup.sim.control.seedLeads([{ status: 'open' }]);
		await setup.host.activate();
		expect(storedEntryOf(setup, lead.id)).toBeDefined();
		setup.sim.control.portalDeleteLead(lead.id);
		await delivered(setup);
		expect(outputs(setup.host).map((output) => output.event.topic)).toEqual(['lead/delete']);
		expect(storedEntryOf(setup, lead.id)).toBeUndefined();
	});

	it('long values are kept as a fingerprint: a change shows `to` without `from`, no change runs nothing', async () => {
		setup = await setUp(watching(['notes']));
		const long = 'a long note '.repeat(20);
		const [lead] = setup.sim.control.seedLeads([{ notes: long }]);
		await setup.host.activate();
		expect(storedEntryOf(setup, lead.id)).not.toContain('a long note');
		await update(setup, lead, { notes: long, value: 5 });
		await delivered(setup);
		expect(setup.host.executions).toHaveLength(0);
		await update(setup, lead, { notes: `${long}!` });
		await delivered(setup);
		expect(outputs(setup.host).map((output) => output.changes)).toEqual([
			{ notes: { to: `${long}!` } },
		]);
	});

	it("the editor's test event shows the changes against the values kept", async () => {
		setup = await setUp(watching(['status']));
		const [lead] = setup.sim.control.seedLeads([{ status: 'open' }]);
		await setup.host.activate();
		await setup.host.deactivate();
		await setup.host.listenForTestEvent();
		await update(setup, lead, { status: 'won' });
		await delivered(setup);
		const test = setup.host.executions.find((execution) => execution.mode === 'manual');
		expect(test?.items[0].json).toMatchObject({
			changes: { status: { from: 'open', to: 'won' } },
			changedFields: ['status'],
		});
	});
});

describe('PartnerLeadsTrigger with Fields to Watch, across stops of n8n', () => {
	let setup: Setup;

	quickTimings(() => setup, { firstCheckDelayMs: 50, settleMs: 0, tickMs: 10, retryDelayMs: 200 });

	/** n8n started again: a new process with what the database holds. */
	async function restart(): Promise<TriggerHost> {
		const stopped = setup.host;
		const persisted = stopped.persisted();
		await stopped.close();
		forgetTriggerNode(stopped.workflow().id, stopped.node.id);
		stopped.store.frozen = false;
		setup.host = await TriggerHost.start(setup.harness, persisted);
		await setup.host.activate('init');
		return setup.host;
	}

	it('a hard kill during the run of a change: its re-run shows the same `from`', async () => {
		setup = await setUp(watching(['status']), { delivery: { maxAttempts: 1 } });
		const [lead] = setup.sim.control.seedLeads([{ status: 'open' }]);
		await setup.host.activate();
		setup.host.dieAfterEmits = 1;
		await update(setup, lead, { status: 'won' });
		await setup.sim.control.waitForDeliveries(10_000);
		expect(setup.host.dead).toBe(true);

		const host = await restart();
		await eventually(() => host.executions.length === 1, 'the re-run');
		expect(outputs(host)).toEqual([
			expect.objectContaining({
				changes: { status: { from: 'open', to: 'won' } },
				recovered: true,
				recoveryReason: 'interrupted',
			}),
		]);
		await sleep(300);
		await host.settle();
		expect(host.executions).toHaveLength(1);
	});

	it('a status change made while n8n was down is recovered with its `from`; a notes change is not', async () => {
		setup = await setUp(watching(['status']), { delivery: { maxAttempts: 1 } });
		const [changed, notesOnly] = setup.sim.control.seedLeads([
			{ status: 'open' },
			{ status: 'open' },
		]);
		await setup.host.activate();
		await sleep(1_100); // past the activation's second (whole-second timestamps)
		const persisted = await stopN8n(setup);
		// while n8n is down: twice on one lead (runs once, from the oldest kept to the newest)
		setup.sim.control.portalUpdateLead(changed.id, { status: 'proposal' });
		setup.sim.control.portalUpdateLead(changed.id, { status: 'won' });
		setup.sim.control.portalUpdateLead(notesOnly.id, { notes: 'only notes' });
		await setup.sim.control.waitForDeliveries(20_000);

		await startN8n(setup, persisted);
		await eventually(() => setup.host.executions.length === 1, 'the recovery');
		await sleep(500);
		await setup.host.settle();
		expect(outputs(setup.host)).toEqual([
			expect.objectContaining({
				event: expect.objectContaining({ id: changed.id, topic: 'lead/update' }),
				changes: { status: { from: 'open', to: 'won' } },
				recovered: true,
				recoveryReason: 'missed',
			}),
		]);
	});

	it('a change recovered and a change delivered of one lead run one after the other, in order: the later one starts from the earlier one’s `to`', async () => {
		setup = await setUp(watching(['status']), { delivery: { maxAttempts: 1 } });
		const [lead] = setup.sim.control.seedLeads([{ status: 'open' }]);
		await setup.host.activate();
		await sleep(1_100); // past the activation's second (whole-second timestamps)
		const persisted = await stopN8n(setup);
		// made while n8n is down: its delivery fails, the recovery finds it
		setup.sim.control.portalUpdateLead(lead.id, { status: 'proposal' });
		await setup.sim.control.waitForDeliveries(20_000);

		await startN8n(setup, persisted);
		// the recovered run's execution (its check comes 50 ms after the start) lasts long enough
		// for the next change to arrive meanwhile
		setup.host.executionMs = 2_000;
		await eventually(() => setup.host.concurrency.now === 1, 'the recovered run under way');
		await update(setup, lead, { status: 'won' });
		await eventually(() => setup.host.executions.length === 2, 'both runs');
		await delivered(setup);

		expect(setup.host.concurrency.max).toBe(1);
		expect(outputs(setup.host)).toEqual([
			expect.objectContaining({
				changes: { status: { from: 'open', to: 'proposal' } },
				recovered: true,
				recoveryReason: 'missed',
			}),
			expect.not.objectContaining({ recovered: true }),
		]);
		expect(outputs(setup.host)[1].changes).toEqual({ status: { from: 'proposal', to: 'won' } });
	});
});

describe("the webhook trigger's watched values at 10,000 leads", () => {
	it("keeps every lead with 5 fields, under the bound, and merges another writer's copy", async () => {
		const { WatchedLeads } = await import('../../../nodes/PartnerLeadsTrigger/state/watchedLeads');
		const { MAX_WATCHED_BYTES } = await import('../../../nodes/shared/changes/watchedValues');
		const fields = ['closeDate', 'industry', 'platform', 'status', 'value'];
		const leads = Array.from({ length: 10_000 }, (_, n) => ({
			id: `lead-${n}`,
			version: 1_000 + n,
			createdMs: 1_000,
			lead: {
				status: n % 2 ? 'won' : 'open',
				value: n,
				platform: 'hubspot',
				closeDate: '2025-06-30',
				customFields: { industry: 'saas' },
			} as IDataObject,
		}));
		const nodeData: IDataObject = {};
		const watched = new WatchedLeads(nodeData, 'w:bound:production', fields);
		watched.takeBaseline(leads);
		const bytes = JSON.stringify(nodeData.watched).length;
		expect(bytes).toBeLessThan(MAX_WATCHED_BYTES);
		expect(bytes / 10_000).toBeLessThan(100);
		// another process (a webhook process in queue mode) reads the stored copy: every lead
		const copy = JSON.parse(JSON.stringify(nodeData)) as IDataObject;
		const other = new WatchedLeads(copy, 'w:bound-other:production', fields);
		expect(other.kept('lead-9999')).toEqual(watched.kept('lead-9999'));
		expect(other.kept('lead-0')?.row).toEqual(['2025-06-30', 'saas', 'hubspot', 'open', 0]);
	});
});
