import fc from 'fast-check';
import type { INodeParameters } from 'n8n-workflow';

import { judgeEventAge } from '../../nodes/PartnerLeadsTrigger/state/seenEvents';
import { N8nHarness } from '../harness/harness';
import { TriggerHost } from '../harness/webhooks';
import { signedDelivery, startSimulator } from '../simulator';
import type { Simulator } from '../simulator/types';
import { FUZZ_SEED, looksPolluted, prototypeFingerprint, runs } from './arbitraries';
import type { EventKey, RawAnswer, RawRequest, Topic } from './webhook-requests';
import {
	authenticEvent,
	eventArb,
	garbageRequestArb,
	keyOf,
	send,
	signedByTrigger,
	signedRequestArb,
	TOPICS,
	withinBounds,
} from './webhook-requests';

/**
 * Property-based tests of the trigger's webhook handler through real loopback HTTP to the
 * n8n-core webhook harness. The trigger stores secrets for all three topics but the
 * workflow now selects only create and update (a selection changed since activation), so
 * authentic deliveries for an unselected topic are part of the input space.
 *
 * Properties:
 * - no execution without a valid signature, by the secret of the body's own topic, for a
 *   selected topic (checked against an oracle written independently of the node);
 * - no crash and no 500, whatever the bytes, headers, content type or size;
 * - every authentic delivery of a selected topic, as the service sends it, is answered 200
 *   and runs exactly once; repeats (in sequence or at the same time) run nothing more.
 */

const SELECTED: Topic[] = ['lead/create', 'lead/update'];
const ALLOWED_STATUSES = new Set([200, 401, 404, 422, 503]);

interface Fixture {
	sim: Simulator;
	host: TriggerHost;
	url: string;
	secrets: Partial<Record<Topic, string>>;
	/** executions per event key, over the whole file */
	executed: Map<string, number>;
	acceptLegacy: boolean;
}

async function startFixture(acceptLegacy: boolean): Promise<Fixture> {
	const sim = await startSimulator({
		allowInsecureLoopbackWebhooks: true,
		seed: 5,
		delivery: { baseDelayMs: 10 },
	});
	const harness = new N8nHarness(sim);
	const options = acceptLegacy ? { acceptLegacySignature: true } : {};
	const first = await TriggerHost.start(harness, {
		parameters: { events: TOPICS, fetchFullLead: false, options },
	});
	await first.activate();
	// Restarted with a narrower selection; only the route is registered (n8n does that
	// before it runs checkExists/create), so the lead/delete secret is still stored.
	const parameters: INodeParameters = { events: SELECTED, fetchFullLead: false, options };
	const restart = first.persisted(parameters);
	await first.close();
	const host = await TriggerHost.start(harness, restart);
	host.registerRoute();
	const secrets: Partial<Record<Topic, string>> = {};
	for (const subscription of sim.control.listSubscriptions()) {
		if (subscription.url === host.webhookUrl())
			secrets[subscription.topic as Topic] = subscription.signingSecret;
	}
	return { sim, host, url: host.webhookUrl(), secrets, executed: new Map(), acceptLegacy };
}

/** Counts the executions the host finished since the last call, by event key. */
function collectExecutions(fixture: Fixture, from: number): number {
	const executions = fixture.host.executions.slice(from);
	for (const execution of executions) {
		for (const item of execution.items) {
			const key = keyOf(item.json.event as unknown as EventKey);
			fixture.executed.set(key, (fixture.executed.get(key) ?? 0) + 1);
		}
	}
	return fixture.host.executions.length;
}

function expectNoCrash(fixture: Fixture, answers: Array<[RawRequest, RawAnswer]>): void {
	expect(fixture.host.crashes).toEqual([]);
	for (const [request, answer] of answers) {
		if (!ALLOWED_STATUSES.has(answer.status))
			throw new Error(`${request.label}: answered ${answer.status} ${answer.body}`);
	}
}

/** Every executed key was vouched for by a valid signature, for a selected topic; none ran twice. */
function expectOnlyAuthenticExecutions(fixture: Fixture, vouched: Set<string>): void {
	for (const [key, count] of fixture.executed) {
		expect(vouched.has(key) ? key : `unvouched: ${key}`).toBe(key);
		expect(SELECTED.some((topic) => key.startsWith(`${topic} `))).toBe(true);
		expect(count === 1 ? key : `${key} ran ${count} times`).toBe(key);
	}
}

describe.each([false, true])(
	'fuzz: trigger webhook over real HTTP (Accept Legacy Signature: %s)',
	(acceptLegacy) => {
		let fixture: Fixture;
		/** every event key some request so far was authentic for (over the whole file) */
		const vouched = new Set<string>();
		const baseline = prototypeFingerprint();
		let seenExecutions = 0;

		beforeAll(async () => {
			fixture = await startFixture(acceptLegacy);
		});
		afterAll(async () => {
			await fixture.host.close();
			await fixture.sim.close();
		});
		afterEach(() => {
			expect(prototypeFingerprint()).toBe(baseline);
			expect(looksPolluted()).toBe(false);
		});

		async function exchange(
			requests: RawRequest[],
			concurrently = false,
		): Promise<Array<[RawRequest, RawAnswer]>> {
			for (const request of requests) {
				const event = authenticEvent(request, fixture.secrets, fixture.acceptLegacy);
				if (event) vouched.add(keyOf(event));
			}
			const answers: Array<[RawRequest, RawAnswer]> = [];
			if (concurrently) {
				const results = await Promise.all(
					requests.map(async (request) => await send(fixture.url, request)),
				);
				results.forEach((answer, index) => answers.push([requests[index], answer]));
			} else {
				for (const request of requests) answers.push([request, await send(fixture.url, request)]);
			}
			await fixture.host.settle();
			seenExecutions = collectExecutions(fixture, seenExecutions);
			return answers;
		}

		it('garbage: no crash, no 500, no execution', async () => {
			await fc.assert(
				fc.asyncProperty(
					fc.array(garbageRequestArb, { minLength: 1, maxLength: 5 }),
					async (requests) => {
						const before = fixture.host.executions.length;
						const answers = await exchange(requests);
						expectNoCrash(fixture, answers);
						expect(fixture.host.executions.length).toBe(before);
					},
				),
				{ seed: FUZZ_SEED, numRuns: runs(40) },
			);
		});

		it('mutated and re-signed deliveries: an execution only for what a valid signature of a selected topic vouches for', async () => {
			await fc.assert(
				fc.asyncProperty(
					fc.array(signedRequestArb(fixture), { minLength: 1, maxLength: 6 }),
					async (requests) => {
						const answers = await exchange(requests);
						expectNoCrash(fixture, answers);
						expectOnlyAuthenticExecutions(fixture, vouched);
						for (const [request, answer] of answers) {
							const event = authenticEvent(request, fixture.secrets, fixture.acceptLegacy);
							// Nothing vouches for it: refused (or not even routed/parsed by n8n), never
							// acknowledged, unless the bytes are signed by one of the trigger's secrets.
							if (!event && !signedByTrigger(request, fixture.secrets))
								expect([request.label, answer.status === 200]).toEqual([request.label, false]);
							// Authentic, sane and sent as JSON: acknowledged (run, duplicate, or not selected).
							const json = request.headers.some(
								([name, value]) => name === 'content-type' && value === 'application/json',
							);
							if (event && withinBounds(event) && json)
								expect([request.label, answer.status]).toEqual([request.label, 200]);
						}
					},
				),
				{ seed: FUZZ_SEED + 1, numRuns: runs(60) },
			);
		});

		it('authentic deliveries as the service sends them: each accepted and run exactly once, repeats acknowledged without a run', async () => {
			const deliveryArb = fc.record({
				event: eventArb.filter(
					(event) =>
						(SELECTED as string[]).includes(event.topic) &&
						/^[0-9a-f]{24}$/.test(event.id) &&
						event.timestamp.endsWith('Z') &&
						judgeEventAge(event.timestamp, 72 * 3600).verdict === 'inWindow',
				),
				repeats: fc.integer({ min: 1, max: 3 }),
				concurrently: fc.boolean(),
			});
			await fc.assert(
				fc.asyncProperty(
					fc.uniqueArray(deliveryArb, {
						minLength: 1,
						maxLength: 4,
						selector: ({ event }) => `${event.topic} ${event.id} ${event.timestamp}`,
					}),
					async (deliveries) => {
						for (const { event, repeats, concurrently } of deliveries) {
							const key = `${event.topic} ${event.id} ${event.timestamp}`;
							const alreadyRan = fixture.executed.get(key) ?? 0;
							const secret = fixture.secrets[event.topic as Topic] as string;
							const { rawBody, headers } = signedDelivery(
								secret,
								event.id,
								event.topic as Topic,
								event.timestamp,
							);
							const request: RawRequest = {
								method: 'POST',
								body: Buffer.from(rawBody),
								headers: Object.entries(headers).filter(([name]) => name !== 'content-length'),
								label: `service/${key}`,
							};
							const answers = await exchange(
								Array.from({ length: repeats }, () => request),
								concurrently,
							);
							expectNoCrash(fixture, answers);
							const statuses = answers.map(([, answer]) => answer.status);
							if (alreadyRan === 0 && !concurrently) {
								// in sequence: the first runs it, every later one is a duplicate
								expect(statuses).toEqual(Array.from({ length: repeats }, () => 200));
								expect(
									answers
										.slice(1)
										.every(([, answer]) => JSON.parse(answer.body).duplicate === true),
								).toBe(true);
							} else {
								// at the same time: one runs it, the others are duplicates or asked to retry
								expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
								if (alreadyRan === 0) expect(statuses).toContain(200);
							}
							expect(fixture.executed.get(key)).toBe(1);
						}
						expectOnlyAuthenticExecutions(fixture, vouched);
					},
				),
				{ seed: FUZZ_SEED + 2, numRuns: runs(30) },
			);
		});
	},
);
