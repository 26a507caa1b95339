import type { IDataObject } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import type { PollHostOptions } from '../../harness/polls';
import { PollHost } from '../../harness/polls';
import { startSimulator } from '../../simulator';
import type { Simulator } from '../../simulator';
import { portalLead, UNTHROTTLED } from './helpers';

/**
 * The polling trigger with n8n 2.41's durable poll cursors on (the scheduler runs each poll
 * with a fresh context on the node's `poller_state` row, committed with the execution it
 * starts; test/harness/poll-cursors.ts emulates the cli from its source) and off (n8n's
 * default: static data saved with each execution).
 */

let sim: Simulator;
let harness: N8nHarness;

const ALL_EVENTS = ['lead/create', 'lead/update', 'lead/delete'];

function host(
	durableCursors: boolean,
	parameters: IDataObject = {},
	options: Omit<PollHostOptions, 'durableCursors'> = {},
): PollHost {
	return new PollHost(
		harness,
		{ events: ALL_EVENTS, ...UNTHROTTLED, ...parameters },
		{ durableCursors, ...options },
	);
}

/** Each execution's items as sorted `topic id`. */
function executions(...hosts: PollHost[]): string[][] {
	return hosts.flatMap((poller) => poller.eventsByExecution().map((events) => events.sort()));
}

/** A restart as each n8n does it: with durable cursors the scheduler polls, not the activation. */
async function restartAndPoll(poller: PollHost): Promise<PollHost> {
	const next = poller.restarted();
	await next.activate('init');
	if (next.durableCursors) await next.poll();
	return next;
}

describe('PartnerLeadsPollingTrigger with durable poll cursors', () => {
	beforeEach(async () => {
		sim = await startSimulator({ seed: 42 });
		harness = new N8nHarness(sim);
	});

	afterEach(async () => {
		await sim.close();
	});

	it('gives the same executions with durable cursors on and off, across a restart', async () => {
		const leads = sim.control.seedLeads(8);
		let off = host(false);
		let on = host(true);
		await off.activate();
		await on.activate();

		const first = portalLead(sim, 'first');
		sim.control.portalUpdateLead(leads[0].id, { value: 1 });
		sim.control.portalDeleteLead(leads[1].id);
		await off.poll();
		await on.poll();

		const second = portalLead(sim, 'second');
		sim.control.portalUpdateLead(first.id, { value: 2 });
		sim.control.portalUpdateLead(leads[2].id, { value: 3 });
		sim.control.portalUpdateLead(leads[2].id, { value: 4 });
		sim.control.portalDeleteLead(leads[3].id);
		const before = { off: off.executions.length, on: on.executions.length };
		off = await restartAndPoll(off);
		on = await restartAndPoll(on);
		await off.poll();
		await on.poll();

		expect(off.errors).toEqual([]);
		expect(on.errors).toEqual([]);
		expect(before).toEqual({ off: 1, on: 1 });
		expect(executions(off)).toEqual(executions(on));
		expect(executions(on)).toEqual([
			[
				`lead/create ${second.id}`,
				`lead/delete ${leads[3].id}`,
				`lead/update ${first.id}`,
				`lead/update ${leads[2].id}`,
			].sort(),
		]);
	});

	it('keeps the activation baseline: a change made before the first scheduled poll runs at it', async () => {
		sim.control.seedLeads(6);
		const poller = host(true);
		await poller.activate();
		expect(poller.database.cursorRow).toMatchObject({ polling: { clock: 'service' } });

		const early = portalLead(sim, 'early');
		await poller.poll();
		expect(executions(poller)).toEqual([[`lead/create ${early.id}`]]);
		await poller.poll();
		expect(poller.executions).toHaveLength(1);
	});

	it('takes a new baseline when the workflow is activated again: what changed while it was off never runs', async () => {
		const leads = sim.control.seedLeads(6);
		const poller = host(true);
		await poller.activate();
		await poller.poll();
		poller.deactivate();

		portalLead(sim, 'while-off');
		sim.control.portalUpdateLead(leads[0].id, { value: 9 });
		sim.control.portalDeleteLead(leads[1].id);
		await poller.activate();
		await poller.poll();
		expect(poller.executions).toEqual([]);

		const after = portalLead(sim, 'after');
		await poller.poll();
		expect(executions(poller)).toEqual([[`lead/create ${after.id}`]]);
	});

	it('repeats the window of a poll killed before its commit, without running anything twice', async () => {
		const leads = sim.control.seedLeads(6);
		const killed = host(true);
		await killed.activate();
		const lead = portalLead(sim, 'lead');
		sim.control.portalUpdateLead(leads[0].id, { value: 7 });
		killed.dieAt = 'before-commit';
		await killed.poll();
		expect(killed.executions).toEqual([]);

		const later = portalLead(sim, 'later');
		const back = await restartAndPoll(killed);
		await back.poll();
		expect(executions(killed, back)).toEqual([
			[`lead/create ${later.id}`, `lead/create ${lead.id}`, `lead/update ${leads[0].id}`].sort(),
		]);
	});

	it('runs a poll committed just before a kill once, at the restart, and not again', async () => {
		sim.control.seedLeads(6);
		const killed = host(true);
		await killed.activate();
		const lead = portalLead(sim, 'lead');
		killed.dieAt = 'after-commit';
		await killed.poll();
		expect(killed.executions).toEqual([]);

		const back = await restartAndPoll(killed);
		await back.poll();
		expect(executions(killed, back)).toEqual([[`lead/create ${lead.id}`]]);
	});

	it.each([
		['on', true],
		['off', false],
	])(
		'with durable cursors %s, a poll that starts nothing (its topics not selected) never runs them later',
		async (_, durableCursors) => {
			const leads = sim.control.seedLeads(6);
			let poller = host(durableCursors, { events: ['lead/update'] });
			await poller.activate();
			const savedAfterActivation = JSON.stringify(poller.store.load());
			portalLead(sim, 'not-watched');
			sim.control.portalDeleteLead(leads[0].id);
			const cursor = JSON.stringify(poller.database.cursorRow);
			await poller.poll();
			expect(poller.executions).toEqual([]);
			// committed alone with durable cursors; without, kept in memory until an execution
			if (durableCursors) expect(JSON.stringify(poller.database.cursorRow)).not.toBe(cursor);
			else expect(JSON.stringify(poller.store.load())).toBe(savedAfterActivation);

			poller = await restartAndPoll(poller);
			await poller.poll();
			sim.control.portalUpdateLead(leads[1].id, { value: 3 });
			await poller.poll();
			expect(executions(poller)).toEqual([[`lead/update ${leads[1].id}`]]);
		},
	);

	it('spaces polls by List Requests per Minute from the activation on', async () => {
		sim.control.seedLeads(40);
		const poller = host(true, { options: { listRequestsPerMinute: 1 } });
		await poller.activate();
		sim.control.resetStats();
		portalLead(sim, 'waits');
		await poller.poll();
		expect(sim.control.stats().byRoute['GET /leads'] ?? 0).toBe(0);
		expect(poller.executions).toEqual([]);
	});

	it("leaves the full leads it has no time to fetch to the next poll, before n8n's scheduler abandons it", async () => {
		sim.control.seedLeads(5);
		const poller = host(true, {}, { pollBudgetMs: 1 });
		await poller.activate();
		const leads = ['one', 'two', 'three'].map((name) => portalLead(sim, name));
		for (let poll = 0; poll < 4; poll++) await poller.poll();
		expect(poller.errors).toEqual([]);
		// one lead a poll (lead times may be whole seconds: no order among them)
		expect(poller.executions.map((items) => items.length)).toEqual([1, 1, 1]);
		expect(executions(poller).flat().sort()).toEqual(
			leads.map((lead) => `lead/create ${lead.id}`).sort(),
		);
		expect(poller.executions.flat().every((item) => item.json.lead !== undefined)).toBe(true);
	});
});
