import {
	SecretBox,
	SUBSCRIPTIONS,
} from '../../../nodes/PartnerLeadsTrigger/state/sealedSubscriptions';
import { simulatorCredentialData } from '../../harness/simulator-credential';
import { StaticDataStore, TriggerHost } from '../../harness/webhooks';
import type { Setup } from './helpers';
import {
	ALL_TOPICS,
	executedEvents,
	post,
	setUp,
	signed,
	storedSecret,
	subscriptionsAt,
} from './helpers';

/**
 * Signing secrets at rest: sealed in static data under a key only the credential's Client
 * Secret gives, renewed when that key changes, never usable from what n8n shows.
 */

const context = {
	clientSecret: 'secret-a',
	clientId: 'client',
	companyId: 'c'.repeat(24),
	workflowId: 'wf',
	nodeId: 'node',
};

describe('SecretBox', () => {
	it('opens only what it sealed, for the same binding, unaltered', () => {
		const box = new SecretBox(context);
		const sealed = box.seal('whsec_123', 'lead/create\nsub-1');
		expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
		expect(sealed).not.toContain('whsec_123');
		expect(box.seal('whsec_123', 'lead/create\nsub-1')).not.toBe(sealed);
		expect(box.open(sealed, 'lead/create\nsub-1')).toBe('whsec_123');
		expect(box.open(sealed, 'lead/update\nsub-1')).toBeUndefined();
		for (const change of [
			{ clientSecret: 'secret-b' },
			{ clientId: 'other' },
			{ companyId: 'd'.repeat(24) },
			{ workflowId: 'copy' },
			{ nodeId: 'n2' },
		]) {
			expect(
				new SecretBox({ ...context, ...change }).open(sealed, 'lead/create\nsub-1'),
			).toBeUndefined();
		}
		// One bit of the ciphertext flipped in the bytes: an edit of the last base64url
		// characters can leave the bytes as they were (their low bits are padding).
		const bytes = Buffer.from(sealed.slice('v1.'.length), 'base64url');
		bytes[bytes.length - 1] ^= 1;
		const tampered = `v1.${bytes.toString('base64url')}`;
		for (const bad of [tampered, 'whsec_123', '', 'v1.', undefined, 42])
			expect(box.open(bad, 'lead/create\nsub-1')).toBeUndefined();
	});
});

describe('PartnerLeadsTrigger signing secrets at rest', () => {
	let setup: Setup;

	afterEach(async () => {
		await setup?.close();
	});

	it('static data holds no signing secret, and deliveries still verify', async () => {
		setup = await setUp({ events: ALL_TOPICS });
		await setup.host.activate();
		const saved = JSON.stringify(setup.host.store.load());
		const secrets = ALL_TOPICS.map((topic) => storedSecret(setup, topic));
		for (const secret of secrets) expect(saved).not.toContain(secret);
		expect(saved).not.toContain(setup.sim.defaultKey.clientSecret);

		const [lead] = setup.sim.control.seedLeads(1);
		const delivery = signed(secrets[0], lead.id, 'lead/create');
		expect(await post(setup.host.webhookUrl(), delivery.rawBody, delivery.headers)).toBe(200);
		await setup.host.settle();
		expect(executedEvents(setup.host)).toHaveLength(1);
	});

	it('deliveries open the secrets with the box built at activation: the credential is not read again', async () => {
		setup = await setUp({ events: ['lead/create'], fetchFullLead: false });
		const { sim, harness, host } = setup;
		await host.activate();
		const readsAfterActivation = harness.credentialsHelper.decryptions;
		const secret = storedSecret(setup, 'lead/create');
		for (const lead of sim.control.seedLeads(3)) {
			const delivery = signed(secret, lead.id, 'lead/create');
			expect(await post(host.webhookUrl(), delivery.rawBody, delivery.headers)).toBe(200);
		}
		await host.settle();
		expect(executedEvents(host)).toHaveLength(3);
		expect(harness.credentialsHelper.decryptions).toBe(readsAfterActivation);
	});

	it('after the credential gets a new API key, activation renews the subscriptions; old secrets verify until then, and are refused after', async () => {
		setup = await setUp({ events: ['lead/create', 'lead/update'] });
		const { sim, harness, host } = setup;
		await host.activate();
		const oldSecret = storedSecret(setup, 'lead/create');
		const oldIds = subscriptionsAt(sim, host.webhookUrl()).map((subscription) => subscription.id);
		const [lead] = sim.control.seedLeads(1);

		const newKey = sim.control.createKey();
		harness.replaceCredential(
			simulatorCredentialData(sim, {
				clientId: newKey.clientId,
				clientSecret: newKey.clientSecret,
			}),
		);

		// Until the trigger renews, the service still signs with the old subscriptions' secrets:
		// genuine deliveries, verified with the box this process built at activation.
		const stale = signed(oldSecret, lead.id, 'lead/create');
		expect(await post(host.webhookUrl(), stale.rawBody, stale.headers)).toBe(200);

		// n8n restarting or re-activating: checkExists says "not there", create renews.
		expect(await host.checkExists()).toBe(false);
		await host.activate();
		const renewed = subscriptionsAt(sim, host.webhookUrl()).filter(
			(subscription) => subscription.ownerClientId === newKey.clientId,
		);
		expect(renewed.map((subscription) => subscription.topic).sort()).toEqual([
			'lead/create',
			'lead/update',
		]);
		expect(await host.checkExists()).toBe(true);

		const [second] = sim.control.seedLeads(1);
		const fresh = signed(storedSecretOf(renewed, 'lead/create'), second.id, 'lead/create');
		expect(await post(host.webhookUrl(), fresh.rawBody, fresh.headers)).toBe(200);
		const staleAgain = signed(oldSecret, second.id, 'lead/update');
		expect(await post(host.webhookUrl(), staleAgain.rawBody, staleAgain.headers)).toBe(401);
		await host.settle();
		expect(executedEvents(host)).toHaveLength(2);

		// the old key's subscriptions are not ours to list any more; deactivation still tries them
		await host.deactivate();
		expect(
			subscriptionsAt(sim, host.webhookUrl()).filter(
				(subscription) => !oldIds.includes(subscription.id),
			),
		).toEqual([]);
		expect(host.crashes).toEqual([]);
	});

	it('secrets sealed again under a new API key elsewhere (another n8n process activated the workflow) are opened after reading the credential again', async () => {
		setup = await setUp({ events: ['lead/create'] });
		const { sim, harness, host } = setup;
		await host.activate();
		const [lead, later] = sim.control.seedLeads(2);
		const first = signed(storedSecret(setup, 'lead/create'), lead.id, 'lead/create');
		expect(await post(host.webhookUrl(), first.rawBody, first.headers)).toBe(200);

		const newKey = sim.control.createKey();
		const credential = simulatorCredentialData(sim, {
			clientId: newKey.clientId,
			clientSecret: newKey.clientSecret,
		});
		harness.replaceCredential(credential);
		// What the other process stores when it renews the subscription under the new key.
		const nodeData = host.store.nodeData(host.node.name);
		const renewedBox = new SecretBox({
			clientSecret: newKey.clientSecret,
			clientId: newKey.clientId,
			companyId: String(credential.companyId),
			workflowId: host.workflow().id,
			nodeId: host.node.id,
		});
		SUBSCRIPTIONS.save(
			nodeData,
			{
				webhookUrl: host.webhookUrl(),
				byTopic: { 'lead/create': { id: 'sub-renewed', signingSecret: 'whsec_renewed' } },
				unreadable: {},
			},
			renewedBox,
		);
		host.store.replaceNodeData(host.node.name, nodeData);

		const renewed = signed('whsec_renewed', later.id, 'lead/create');
		expect(await post(host.webhookUrl(), renewed.rawBody, renewed.headers)).toBe(200);
		await host.settle();
		expect(executedEvents(host).map((event) => event.split(' ')[1])).toEqual([lead.id, later.id]);
	});

	it('a copied workflow (its static data came along) cannot use the secrets, renews its own and leaves the original alone', async () => {
		setup = await setUp({ events: ['lead/create'] });
		const { sim, harness, host } = setup;
		await host.activate();
		const original = subscriptionsAt(sim, host.webhookUrl());
		const store = new StaticDataStore();
		store.replaceNodeData(host.node.name, host.store.nodeData(host.node.name));
		const copy = await TriggerHost.start(harness, {
			parameters: { events: ['lead/create'] },
			store,
		});
		try {
			expect(await copy.checkExists()).toBe(false);
			await copy.activate();
			expect(subscriptionsAt(sim, copy.webhookUrl())).toHaveLength(1);
			expect(subscriptionsAt(sim, host.webhookUrl())).toEqual(original);
			// the original still verifies its deliveries
			const [lead] = sim.control.seedLeads(1);
			const delivery = signed(original[0].signingSecret, lead.id, 'lead/create');
			expect(await post(host.webhookUrl(), delivery.rawBody, delivery.headers)).toBe(200);
			expect(await post(copy.webhookUrl(), delivery.rawBody, delivery.headers)).toBe(401);
		} finally {
			await copy.deactivate();
			await copy.close();
		}
		expect(subscriptionsAt(sim, host.webhookUrl())).toEqual(original);
	});

	it('plain-text secrets saved by an earlier version are replaced on activation', async () => {
		setup = await setUp({ events: ['lead/create'] });
		const { sim, host } = setup;
		await host.activate();
		const before = subscriptionsAt(sim, host.webhookUrl());
		// what earlier versions saved: the secret itself
		host.store.replaceNodeData(host.node.name, {
			subscriptions: {
				webhookUrl: host.webhookUrl(),
				byTopic: { 'lead/create': { id: before[0].id, signingSecret: before[0].signingSecret } },
			},
		});
		expect(await host.checkExists()).toBe(false);
		await host.activate();
		const after = subscriptionsAt(sim, host.webhookUrl());
		expect(after).toHaveLength(1);
		expect(after[0].id).not.toBe(before[0].id);
		expect(JSON.stringify(host.store.nodeData(host.node.name))).not.toContain(
			after[0].signingSecret,
		);
		expect(JSON.stringify(host.store.nodeData(host.node.name))).not.toContain(
			before[0].signingSecret,
		);
	});
});

function storedSecretOf(
	subscriptions: Array<{ topic: string; signingSecret: string }>,
	topic: string,
): string {
	const found = subscriptions.find((subscription) => subscription.topic === topic);
	if (!found) throw new Error(`no subscription for ${topic}`);
	return found.signingSecret;
}
