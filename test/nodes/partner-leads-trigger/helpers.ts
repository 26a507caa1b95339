import { createHmac } from 'node:crypto';

import type { INodeParameters } from 'n8n-workflow';

import { N8nHarness } from '../../harness/harness';
import { TriggerHost } from '../../harness/webhooks';
import type { TriggerHostOptions } from '../../harness/webhooks';
import { signedDelivery, startSimulator } from '../../simulator';
import type { LeadTopic, Simulator, SimulatorOptions } from '../../simulator';

export const ALL_TOPICS: LeadTopic[] = ['lead/create', 'lead/update', 'lead/delete'];

export interface Setup {
	sim: Simulator;
	harness: N8nHarness;
	host: TriggerHost;
	close(): Promise<void>;
}

/** A simulator that delivers to loopback http quickly, and a trigger host in front of n8n-core. */
export async function setUp(
	parameters: INodeParameters = { events: ALL_TOPICS },
	simulatorOptions: SimulatorOptions = {},
	hostOptions: Omit<TriggerHostOptions, 'parameters'> = {},
): Promise<Setup> {
	const sim = await startSimulator({
		allowInsecureLoopbackWebhooks: true,
		seed: 42,
		...simulatorOptions,
		delivery: { baseDelayMs: 10, ...simulatorOptions.delivery },
	});
	const harness = new N8nHarness(sim);
	const host = await TriggerHost.start(harness, { ...hostOptions, parameters });
	const setup: Setup = {
		sim,
		harness,
		host,
		async close() {
			// the test may have replaced the host (a simulated restart)
			await setup.host.close();
			await sim.close();
		},
	};
	return setup;
}

/** The signing secret of the trigger's subscription for a topic, as the service knows it. */
export function storedSecret(setup: Pick<Setup, 'sim' | 'host'>, topic: LeadTopic): string {
	const url = setup.host.webhookUrl();
	const subscription = setup.sim.control
		.listSubscriptions()
		.find((entry) => entry.url === url && entry.topic === topic);
	if (!subscription) throw new Error(`no subscription for ${topic} at ${url}`);
	return subscription.signingSecret;
}

export function hmacHex(secret: string, data: string | Buffer): string {
	return createHmac('sha256', secret).update(data).digest('hex');
}

/** A delivery exactly as the service signs it. */
export function signed(
	secret: string,
	id: string,
	topic: LeadTopic,
	timestamp = new Date().toISOString(),
) {
	return signedDelivery(secret, id, topic, timestamp);
}

/** POSTs raw bytes to the trigger's URL, as the service (or an attacker) would. */
export async function post(
	url: string,
	body: string | Buffer,
	headers: Record<string, string>,
): Promise<number> {
	const sendable = { ...headers };
	delete sendable['content-length'];
	const response = await fetch(url, { method: 'POST', body, headers: sendable });
	await response.arrayBuffer();
	return response.status;
}

/** The service's own retry of a delivery of `topic`, sent now to the trigger; its HTTP status. */
export async function redeliver(
	setup: Pick<Setup, 'sim' | 'host'>,
	leadId: string,
	topic: LeadTopic,
	timestamp?: string,
): Promise<number> {
	const again = signed(storedSecret(setup, topic), leadId, topic, timestamp);
	return await post(setup.host.webhookUrl(), again.rawBody, again.headers);
}

/** Deletes a subscription "by hand" on the service, with the same key, through the transport. */
export async function deleteOnService(harness: N8nHarness, id: string): Promise<void> {
	const run = await harness.runNode({
		type: 'test.transportProbe',
		parameters: {},
		items: [{ method: 'DELETE', api: 'webhooks', path: `/${id}`, what: 'subscription' }],
	});
	if (run.error) throw new Error(run.error.message);
}

export function subscriptionsAt(sim: Simulator, url: string) {
	return sim.control.listSubscriptions().filter((subscription) => subscription.url === url);
}

/** Lead events the trigger turned into executions, as `topic id timestamp` strings. */
export function executedEvents(host: TriggerHost): string[] {
	return host.executions.flatMap((execution) =>
		execution.items.map((item) => {
			const event = item.json.event as { id: string; topic: string; timestamp: string };
			return `${event.topic} ${event.id} ${event.timestamp}`;
		}),
	);
}
