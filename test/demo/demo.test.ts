/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import type { INode } from 'n8n-workflow';

import type { DemoAccount } from '../../scripts/demo/account';
import {
	DEMO_SIMULATOR_OPTIONS,
	DEMO_TRIGGER_EVENTS,
	DEMO_TRIGGER_PARAMETERS,
	runDemo,
} from '../../scripts/demo/demo';
import { demoLeadList, UPDATED_DEAL_VALUE } from '../../scripts/demo/lead-list';
import { formatAccount } from '../../scripts/demo/print';
import { listSubscriptionsWorkflow, pushLeadsWorkflow } from '../../scripts/demo/workflows';
import { parameterProblems } from '../examples/parameter-check';
import { N8nHarness, TRIGGER_NODE_TYPE } from '../harness/harness';
import { STANDARD_LEAD_FIELD_IDS, startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';

/** Prefixes of every secret the simulator hands out: client secrets, access tokens, signing secrets. */
const SECRET_PATTERN = /sim_secret_|sat_|whsec_/;

describe('npm run demo', () => {
	let sim: Simulator;
	let account: DemoAccount;
	let text: string;

	beforeAll(async () => {
		sim = await startSimulator(DEMO_SIMULATOR_OPTIONS);
		account = await runDemo({ sim });
		text = formatAccount(account);
	});

	afterAll(async () => {
		await sim.close();
	});

	it('creates the good rows and reports the bad ones with the messages n8n shows', () => {
		const held = sim.control.listLeads();
		expect(account.push.created.map((lead) => lead.id).sort()).toEqual(
			held.map((lead) => lead.id).sort(),
		);
		for (const lead of account.push.created)
			expect(sim.control.getLead(lead.id)?.email).toBe(lead.email);
		expect(account.push.created.length + account.push.failed.length).toBe(
			account.push.rowsSubmitted,
		);

		const messages = account.push.failed.map((failure) => failure.message);
		expect(messages).toEqual([
			expect.stringMatching(/Platform \(platform\) must be one of: .*hubspot.*\(got "myspace"\)/),
			expect.stringMatching(/Email \(email\) is required/),
			expect.stringMatching(/does not belong to partner organization/),
		]);
		// Only the last one reached the service; the node caught the others before sending.
		expect(account.push.failed.map((failure) => failure.httpCode)).toEqual([
			undefined,
			undefined,
			'400',
		]);
		expect(sim.control.stats().statusesByRoute['POST /leads']).toEqual({
			201: held.length,
			400: 1,
		});
	});

	it('reads the leads back and updates one', () => {
		expect([...account.push.readBack].sort()).toEqual(
			sim.control
				.listLeads()
				.map((lead) => lead.id)
				.sort(),
		);
		const updated = account.push.updated;
		expect(updated?.value).toBe(UPDATED_DEAL_VALUE);
		expect(sim.control.getLead(updated?.id ?? '')?.value).toBe(UPDATED_DEAL_VALUE);
	});

	it('runs each event once, verified, and suppresses the duplicates the service sent', () => {
		const attempts = sim.control.deliveries();
		const acknowledged = attempts.filter((attempt) => attempt.acknowledged);
		const duplicates = acknowledged.filter((attempt) => attempt.duplicate);
		const events = new Set(attempts.map((attempt) => attempt.deliveryId));
		const { trigger } = account;

		expect(trigger.deliveriesReceived).toBe(attempts.length);
		expect(trigger.deliveriesVerified).toBe(acknowledged.length);
		expect(trigger.deliveriesRefused).toBe(0);
		expect(trigger.duplicatesSuppressed).toBe(duplicates.length);
		expect(trigger.duplicatesSuppressed).toBeGreaterThan(0);
		expect(trigger.executions).toBe(events.size);
		expect(trigger.fullLeadsFetched).toBe(trigger.executions);
		expect(trigger.executionsByTopic).toEqual({
			'lead/create': account.push.created.length,
			'lead/update': 1,
		});
	});

	it('leaves no subscription behind and asks for one token', () => {
		expect(account.trigger.subscriptionsWhileActive).toBe(DEMO_TRIGGER_EVENTS.length);
		expect(account.trigger.subscriptionsLeft).toBe(0);
		expect(sim.control.listSubscriptions()).toHaveLength(0);
		expect(account.tokenRequests).toBe(1);
		expect(sim.control.stats().tokensIssued).toBe(1);
	});

	it('builds its workflows only from parameters our nodes show for each operation', () => {
		const harness = new N8nHarness(sim);
		const push = pushLeadsWorkflow(harness, demoLeadList(sim), sim.defaultPartnerOrganization.id);
		const trigger: INode = {
			id: 't',
			name: 'Lead Events',
			type: TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: DEMO_TRIGGER_PARAMETERS,
		};
		const ours = [...push.nodes, ...listSubscriptionsWorkflow(harness).nodes, trigger].filter(
			(node) => node.type !== 'test.testItems',
		);
		expect(ours).toHaveLength(5);
		for (const node of ours) {
			const { description } = harness.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			expect({
				node: node.name,
				problems: parameterProblems(description, node, STANDARD_LEAD_FIELD_IDS),
			}).toEqual({ node: node.name, problems: [] });
		}
	});

	it('prints the account without secrets', () => {
		expect(text).toContain(`${account.push.created.length} leads created`);
		expect(text).toContain(`${account.trigger.duplicatesSuppressed} duplicate deliver`);
		expect(text).toContain('0 subscriptions left on the service');
		expect(text).not.toMatch(SECRET_PATTERN);
		expect(text).not.toContain(sim.defaultKey.clientSecret);
	});
});

describe('npm run demo as a command', () => {
	it('exits 0 within a minute and prints no secret', () => {
		// eslint-disable-next-line @n8n/community-nodes/no-dangerous-functions -- a test starting our own npm script, never shipped
		const result = spawnSync('npm', ['run', '--silent', 'demo'], {
			cwd: join(__dirname, '..', '..'),
			encoding: 'utf8',
			timeout: 60_000,
		});
		expect(result.error).toBeUndefined();
		expect(result.stderr).not.toContain('demo failed');
		expect(result.status).toBe(0);
		expect(result.stdout).toContain('0 subscriptions left on the service');
		expect(`${result.stdout}${result.stderr}`).not.toMatch(SECRET_PATTERN);
	}, 70_000);
});
