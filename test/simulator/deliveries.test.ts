import { startSimulator } from './index';
import {
	apiClient,
	hmacHex,
	sleep,
	startReceiver,
	tokenFor,
	validLead,
	type Receiver,
} from './test-helpers';
import type { LeadTopic, Simulator, SimulatorOptions } from './types';

/** Spec section 4 (delivery to the subscriber) and section 6 (events, delivery rules, signatures). */

// Quick retries; a receiver's answer may take up to 5 s (a busy machine answers late, and a
// late answer taken for none would be retried and counted twice). The timeout's own test
// sets a shorter one.
const FAST = { baseDelayMs: 10, timeoutMs: 5_000, maxAttempts: 3 };

let sim: Simulator;
let receiver: Receiver;
let client: ReturnType<typeof apiClient>;
const extra: Array<{ close(): Promise<void> }> = [];

async function extraSimulator(options: SimulatorOptions): Promise<Simulator> {
	const started = await startSimulator({
		personality: 'default',
		allowInsecureLoopbackWebhooks: true,
		...options,
	});
	extra.push(started);
	return started;
}

async function extraReceiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
	const started = await startReceiver(...args);
	extra.push(started);
	return started;
}

async function subscribe(
	target: Simulator,
	topic: LeadTopic,
	url: string,
): Promise<{ id: string; signingSecret: string }> {
	const answer = await apiClient(target, await tokenFor(target)).webhooks('POST', '', {
		topic,
		url,
	});
	expect(answer.status).toBe(200);
	// bare bodies (a personality's) carry the subscription itself
	return answer.body.data ?? answer.body;
}

beforeAll(async () => {
	sim = await startSimulator({
		personality: 'default',
		seed: 6,
		allowInsecureLoopbackWebhooks: true,
		delivery: FAST,
	});
	receiver = await startReceiver();
});
afterAll(async () => {
	await Promise.all([sim.close(), receiver.close(), ...extra.map((item) => item.close())]);
});
beforeEach(async () => {
	sim.control.reset();
	receiver.received.length = 0;
	receiver.setResponder(() => 200);
	client = apiClient(sim, await tokenFor(sim));
});

describe('delivery request', () => {
	it('POSTs {id, topic, timestamp} with the spec headers and both signatures over the received bytes', async () => {
		const { signingSecret } = await subscribe(sim, 'lead/create', receiver.url);
		const lead = (await client.api('POST', '/leads', validLead(sim))).body.data;
		await sim.control.waitForDeliveries(10_000);
		const [request] = await receiver.waitFor(1);
		expect(receiver.received).toHaveLength(1);

		expect(request.method).toBe('POST');
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.headers['user-agent']).toMatch(/^svc-webhooks\/\d+\.\d+\.\d+$/);
		const payload = JSON.parse(request.raw.toString('utf8'));
		expect(payload).toEqual({
			id: lead.id,
			topic: 'lead/create',
			timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
		});

		// v2: over the exact raw bytes, recomputed independently
		expect(request.headers['x-svc-signature-v2']).toBe(hmacHex(signingSecret, request.raw));
		// legacy: over a freshly built object with keys in alphabetical order
		const sorted = Object.fromEntries(
			Object.keys(payload)
				.sort()
				.map((key) => [key, payload[key]]),
		);
		const legacyInput = JSON.stringify(sorted);
		expect(Object.keys(sorted)).toEqual(['id', 'timestamp', 'topic']);
		expect(request.headers['x-svc-signature']).toBe(hmacHex(signingSecret, legacyInput));
		// The raw bytes are not the sorted serialisation, so a receiver that re-serialises fails v2.
		expect(request.raw.toString('utf8')).not.toBe(legacyInput);
		expect(request.headers['x-svc-signature-v2']).not.toBe(hmacHex(signingSecret, legacyInput));

		const [attempt] = sim.control.deliveries();
		expect(attempt).toEqual(
			expect.objectContaining({
				subscriptionId: expect.any(String),
				url: receiver.url,
				topic: 'lead/create',
				leadId: lead.id,
				timestamp: payload.timestamp,
				attempt: 1,
				duplicate: false,
				rawBody: request.raw.toString('utf8'),
				status: 200,
				acknowledged: true,
			}),
		);
		expect(attempt.headers['x-svc-signature-v2']).toBe(request.headers['x-svc-signature-v2']);
	});

	it('sends one POST per matching subscription and nothing to other topics', async () => {
		const second = await extraReceiver();
		await subscribe(sim, 'lead/create', receiver.url);
		await subscribe(sim, 'lead/create', second.url);
		await subscribe(sim, 'lead/update', second.url);
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		expect(receiver.received).toHaveLength(1);
		expect(second.received.map((r) => JSON.parse(r.raw.toString()).topic)).toEqual(['lead/create']);
	});

	it('does not make the API answer wait for the receiver', async () => {
		const patient = await extraSimulator({ seed: 12, delivery: { ...FAST, timeoutMs: 10_000 } });
		const holding = await extraReceiver(() => 'hang');
		await subscribe(patient, 'lead/create', holding.url);
		const answer = await apiClient(patient, await tokenFor(patient)).api(
			'POST',
			'/leads',
			validLead(patient),
		);
		expect(answer.status).toBe(201);
		await holding.waitFor(1);
		// The receiver has not answered yet, and the lead was already confirmed.
		expect(patient.control.deliveries()).toEqual([]);
		holding.release(200);
		await patient.control.waitForDeliveries(10_000);
		expect(patient.control.deliveries().map((a) => a.acknowledged)).toEqual([true]);
	});
});

describe('events', () => {
	it('emits lead/update for API PATCH and portal updates, lead/create for portal creates, lead/delete for portal deletes', async () => {
		for (const topic of ['lead/create', 'lead/update', 'lead/delete'] as const)
			await subscribe(sim, topic, receiver.url);
		const viaApi = (await client.api('POST', '/leads', validLead(sim))).body.data;
		await client.api('PATCH', `/leads/${viaApi.id}`, { value: 3 });
		const viaPortal = sim.control.portalCreateLead({ firstName: 'Portal', lastName: 'Lead' });
		sim.control.portalUpdateLead(viaPortal.id, { value: 7 });
		sim.control.portalDeleteLead(viaPortal.id);
		await sim.control.waitForDeliveries(10_000);
		const events = receiver.received.map((r) => JSON.parse(r.raw.toString()));
		expect(events.map((e) => `${e.topic} ${e.id}`).sort()).toEqual(
			[
				`lead/create ${viaApi.id}`,
				`lead/update ${viaApi.id}`,
				`lead/create ${viaPortal.id}`,
				`lead/update ${viaPortal.id}`,
				`lead/delete ${viaPortal.id}`,
			].sort(),
		);
		expect(sim.control.getLead(viaPortal.id)).toBeUndefined();
	});

	it('does not emit for seeded leads or failed creates', async () => {
		await subscribe(sim, 'lead/create', receiver.url);
		sim.control.seedLeads(3);
		await client.api('POST', '/leads', { firstName: 'only' });
		await sim.control.waitForDeliveries(10_000);
		expect(receiver.received).toHaveLength(0);
	});
});

describe('retries', () => {
	it('retries any status but 200 with growing delays, same bytes and signatures', async () => {
		const statuses = [500, 201, 200];
		receiver.setResponder((_request, index) => statuses[index] ?? 200);
		await subscribe(sim, 'lead/create', receiver.url);
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		const log = sim.control.deliveries();
		expect(log.map((a) => [a.attempt, a.status, a.acknowledged])).toEqual([
			[1, 500, false],
			[2, 201, false],
			[3, 200, true],
		]);
		expect(new Set(log.map((a) => a.deliveryId)).size).toBe(1);
		expect(new Set(receiver.received.map((r) => r.raw.toString())).size).toBe(1);
		expect(new Set(receiver.received.map((r) => r.headers['x-svc-signature-v2'])).size).toBe(1);
		const [first, second, third] = receiver.received.map((r) => r.at);
		expect(second - first).toBeGreaterThanOrEqual(FAST.baseDelayMs - 2);
		expect(third - second).toBeGreaterThanOrEqual(2 * FAST.baseDelayMs - 2);
	});

	it('retries when the receiver does not answer within the timeout', async () => {
		const timeoutMs = 1_000;
		const target = await extraSimulator({ seed: 13, delivery: { ...FAST, timeoutMs } });
		receiver.setResponder((_request, index) => (index === 0 ? 'hang' : 200));
		await subscribe(target, 'lead/create', receiver.url);
		await apiClient(target, await tokenFor(target)).api('POST', '/leads', validLead(target));
		await target.control.waitForDeliveries(10_000);
		const log = target.control.deliveries();
		expect(log).toHaveLength(2);
		expect(log[0]).toEqual(
			expect.objectContaining({
				attempt: 1,
				acknowledged: false,
				error: `no answer within ${timeoutMs} ms`,
			}),
		);
		expect(log[0].status).toBeUndefined();
		expect(log[1]).toEqual(
			expect.objectContaining({ attempt: 2, status: 200, acknowledged: true }),
		);
	});

	it('retries a refused connection and gives up after maxAttempts', async () => {
		const gone = await startReceiver();
		const url = gone.url;
		await gone.close();
		await subscribe(sim, 'lead/create', url);
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		const log = sim.control.deliveries();
		expect(log.map((a) => a.attempt)).toEqual([1, 2, 3]);
		expect(
			log.every(
				(a) => !a.acknowledged && a.status === undefined && /ECONNREFUSED/.test(a.error ?? ''),
			),
		).toBe(true);
	});

	it('gives up after maxAttempts of non-200 answers', async () => {
		receiver.setResponder(() => 503);
		await subscribe(sim, 'lead/create', receiver.url);
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		expect(receiver.received).toHaveLength(FAST.maxAttempts);
		expect(sim.control.deliveries().map((a) => a.status)).toEqual([503, 503, 503]);
	});

	it('follows an explicit retry schedule, and with an empty one gives up after the first attempt', async () => {
		const failing = await extraReceiver(() => 503);
		const scheduled = await extraSimulator({
			seed: 9,
			delivery: { ...FAST, retryDelaysMs: [40, 5] },
		});
		await subscribe(scheduled, 'lead/create', failing.url);
		scheduled.control.portalCreateLead({ firstName: 'S' });
		await scheduled.control.waitForDeliveries(10_000);
		expect(scheduled.control.deliveries().map((a) => a.attempt)).toEqual([1, 2, 3]);
		const [first, second, third] = failing.received.map((r) => r.at);
		expect(second - first).toBeGreaterThanOrEqual(40 - 2);
		expect(third - second).toBeLessThan(second - first);

		const once = await extraSimulator({ seed: 10, delivery: { ...FAST, retryDelaysMs: [] } });
		await subscribe(once, 'lead/create', failing.url);
		once.control.portalCreateLead({ firstName: 'N' });
		await once.control.waitForDeliveries(10_000);
		expect(once.control.deliveries().map((a) => [a.attempt, a.status])).toEqual([[1, 503]]);
	});

	it('with the receiver unreachable, sends nothing and gives up after the schedule', async () => {
		await subscribe(sim, 'lead/create', receiver.url);
		sim.control.setDeliveryFaults({ unreachable: true });
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		sim.control.setDeliveryFaults({});
		expect(receiver.received).toHaveLength(0);
		expect(sim.control.deliveries().map((a) => [a.attempt, a.acknowledged])).toEqual([
			[1, false],
			[2, false],
			[3, false],
		]);
	});

	it('stops retrying once the subscription is deleted', async () => {
		// A long first retry delay, so the DELETE surely lands before the retry is due.
		const target = await extraSimulator({ seed: 8, delivery: { ...FAST, baseDelayMs: 150 } });
		const failing = await extraReceiver(() => 500);
		const { id } = await subscribe(target, 'lead/create', failing.url);
		target.control.portalCreateLead({ firstName: 'D' });
		await failing.waitFor(1);
		const owner = apiClient(target, await tokenFor(target));
		expect((await owner.webhooks('DELETE', `/${id}`)).status).toBe(200);
		await target.control.waitForDeliveries(10_000);
		expect(failing.received).toHaveLength(1);
	});

	it('rejects waitForDeliveries with a clear message when still busy', async () => {
		receiver.setResponder(() => 'hang');
		await subscribe(sim, 'lead/create', receiver.url);
		await client.api('POST', '/leads', validLead(sim));
		await expect(sim.control.waitForDeliveries(20)).rejects.toThrow(
			/still busy after 20 ms \(.*in flight/,
		);
		receiver.setResponder(() => 200);
		// the hung attempt ends at the timeout, and its retry is answered
		await sim.control.waitForDeliveries(FAST.timeoutMs + 10_000);
	});

	it('records but never sends deliveries to non-loopback addresses', async () => {
		await subscribe(sim, 'lead/create', 'https://hooks.example.com/x');
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		const log = sim.control.deliveries();
		expect(log).toHaveLength(1);
		expect(log[0]).toEqual(
			expect.objectContaining({
				acknowledged: false,
				error: expect.stringMatching(/only delivers to loopback/),
			}),
		);
	});
});

describe('delivery faults and concurrency', () => {
	it('duplicates acknowledged deliveries with the same bytes and signatures', async () => {
		sim.control.setDeliveryFaults({ duplicateRate: 1 });
		await subscribe(sim, 'lead/create', receiver.url);
		await client.api('POST', '/leads', validLead(sim));
		await sim.control.waitForDeliveries(10_000);
		expect(receiver.received).toHaveLength(2);
		const [a, b] = receiver.received;
		expect(b.raw.equals(a.raw)).toBe(true);
		expect(b.headers['x-svc-signature-v2']).toBe(a.headers['x-svc-signature-v2']);
		expect(b.headers['x-svc-signature']).toBe(a.headers['x-svc-signature']);
		expect(sim.control.deliveries().map((d) => d.duplicate)).toEqual([false, true]);
	});

	it('reorders pending deliveries when asked, deterministically per seed', async () => {
		const order = async (reorder: boolean) => {
			const target = await extraSimulator({ seed: 42, delivery: { ...FAST, concurrency: 1 } });
			const sink = await extraReceiver();
			await subscribe(target, 'lead/create', sink.url);
			target.control.setDeliveryFaults({ reorder });
			const ids = Array.from(
				{ length: 12 },
				(_, i) => target.control.portalCreateLead({ firstName: `L${i}` }).id,
			);
			await target.control.waitForDeliveries(10_000);
			return { ids, seen: sink.received.map((r) => JSON.parse(r.raw.toString()).id as string) };
		};
		const inOrder = await order(false);
		expect(inOrder.seen).toEqual(inOrder.ids);
		const shuffled = await order(true);
		expect([...shuffled.seen].sort()).toEqual([...shuffled.ids].sort());
		expect(shuffled.seen).not.toEqual(shuffled.ids);
		const again = await order(true);
		expect(again.seen.map((id) => again.ids.indexOf(id))).toEqual(
			shuffled.seen.map((id) => shuffled.ids.indexOf(id)),
		);
	});

	it('keeps at most `concurrency` deliveries in flight', async () => {
		const target = await extraSimulator({
			seed: 7,
			delivery: { ...FAST, timeoutMs: 10_000, concurrency: 2 },
		});
		const holding = await extraReceiver(() => 'hang');
		await subscribe(target, 'lead/create', holding.url);
		for (let i = 0; i < 8; i++) target.control.portalCreateLead({ firstName: `C${i}` });
		await holding.waitFor(2);
		await sleep(40);
		expect(holding.received).toHaveLength(2);
		holding.setResponder(() => 200);
		holding.release(200);
		await target.control.waitForDeliveries(10_000);
		expect(holding.received).toHaveLength(8);
		expect(holding.maxConcurrent()).toBe(2);
	});

	it.each([
		['default', 8],
		['capped-20-hasmore-html', 64],
		['capped-7-bare-403-text', 100],
	])(
		'sends as many deliveries at once as its personality (%s) does where the options choose none: %i of 100',
		async (personality, atOnce) => {
			const target = await extraSimulator({
				personality,
				seed: 8,
				delivery: { baseDelayMs: 10, timeoutMs: 10_000, maxAttempts: 3 },
			});
			const holding = await extraReceiver(() => 'hang');
			await subscribe(target, 'lead/create', holding.url);
			for (let i = 0; i < 100; i++) target.control.portalCreateLead({ firstName: `C${i}` });
			await holding.waitFor(atOnce);
			await sleep(40);
			expect(holding.received).toHaveLength(atOnce);
			holding.setResponder(() => 200);
			holding.release(200);
			await target.control.waitForDeliveries(10_000);
			expect(holding.received).toHaveLength(100);
			expect(holding.maxConcurrent()).toBe(atOnce);
		},
	);
});
