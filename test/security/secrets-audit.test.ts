/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- test code: runs in Node next to n8n, never inside it, never shipped */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

import type {
	IDataObject,
	INodeCredentialsDetails,
	INodeParameters,
	ResourceMapperValue,
} from 'n8n-workflow';

import { runSoak } from '../../scripts/soak/soak';
import { testCredential } from '../harness/credential-test';
import type { NodeRun } from '../harness/harness';
import { N8nHarness, simulatorCredentialData } from '../harness/harness';
import { TriggerHost } from '../harness/webhooks';
import { signedDelivery, startSimulator } from '../simulator';
import type { ApiKey, Simulator } from '../simulator/types';
import { LogCapture } from './capture';
import type { Leak, WalkOptions } from './leak-scan';
import { describeLeaks, leaksIn, SecretRegistry } from './leak-scan';

/**
 * Secrets audit. A key with a recognisable Client Secret ("SECRET-CANARY-…") is used for
 * everything; every access token the credential store is given and every signing secret
 * the service hands out are recorded. Then every error path we can reach is run, plus a
 * short soak, while everything written to logs is captured (console.*, stdout/stderr,
 * n8n's logger), and every error (message, description, JSON.stringify, context, cause,
 * stack: all own properties) and every output (the whole execution data of every run) is
 * searched for each secret, as is, base64, URL-encoded and cut off.
 *
 * Allowed: the signing secret in the output of Webhook Subscription > Create (the only
 * time the service returns it, and the user asked for it). Not scanned: the credential
 * store and the trigger's static data, which are where n8n keeps secrets (encrypted).
 */

jest.setTimeout(120_000);

const canary = (label: string) => `SECRET-CANARY-${label}-${randomBytes(12).toString('hex')}`;

const registry = new SecretRegistry();
const capture = new LogCapture();
const artifacts: Array<{ where: string; value: unknown; options?: WalkOptions }> = [];
const allowedSigningSecrets: string[] = [];
/** whether errors of ours carry a `cause`, for the report */
const causes: Array<{ where: string; hasCause: boolean }> = [];

function observe(where: string, value: unknown, options?: WalkOptions): void {
	artifacts.push({ where, value, options });
	if (value instanceof Error) {
		// The forms an error is shown in: what n8n's UI, logs and API would print.
		let json: string;
		try {
			json = JSON.stringify(value);
		} catch (error) {
			json = `JSON.stringify threw: ${(error as Error).message}`;
		}
		const record = value as Error & { description?: unknown; context?: unknown; cause?: unknown };
		artifacts.push({
			where: `${where} (as shown)`,
			value: {
				message: record.message,
				description: record.description,
				json,
				context: record.context,
				cause: record.cause,
				inspected: inspect(value, { depth: 12, showHidden: true }),
			},
		});
		causes.push({ where, hasCause: record.cause !== undefined });
	}
}

/** Every access token the credential store of this harness is given (as n8n would save it). */
function recordTokens(harness: N8nHarness): void {
	harness.credentialsHelper.onAccessTokenSaved = (token) => registry.add('access token', token);
}

function recordSigningSecrets(sim: Simulator): void {
	for (const subscription of sim.control.listSubscriptions())
		registry.add('signing secret', subscription.signingSecret);
}

function scanAll(): Leak[] {
	const leaks: Leak[] = [];
	for (const { where, value, options } of artifacts)
		leaks.push(...leaksIn(registry, where, value, options));
	for (const [index, record] of capture.records.entries())
		leaks.push(...leaksIn(registry, `${record.channel} #${index}`, record.args));
	return leaks;
}

function expectNoLeaks(): void {
	const leaks = scanAll();
	if (leaks.length > 0)
		throw new Error(`Secrets found where they must not be:\n${describeLeaks(leaks)}`);
}

describe('secrets audit: the client secret, access tokens and signing secrets never reach logs, errors or outputs', () => {
	let sim: Simulator;
	let key: ApiKey;
	let harness: N8nHarness;

	async function run(
		where: string,
		parameters: INodeParameters,
		items: IDataObject[] = [{}],
		options: {
			credential?: INodeCredentialsDetails;
			continueOnFail?: boolean;
			on?: N8nHarness;
		} = {},
	): Promise<NodeRun> {
		const on = options.on ?? harness;
		const result = await on.runNode({
			parameters,
			items,
			credential: options.credential,
			continueOnFail: options.continueOnFail,
		});
		const allowed: WalkOptions = {
			allowSubscriptionCreateSecret:
				parameters.resource === 'webhookSubscription' && parameters.operation === 'create',
			onAllowed: (secret) => allowedSigningSecrets.push(secret),
		};
		observe(`${where}: execution data`, result.run, allowed);
		if (result.error) observe(`${where}: error`, result.error);
		const stored = on.storedCredential(options.credential?.id ?? undefined);
		if (typeof stored?.accessToken === 'string') registry.add('access token', stored.accessToken);
		recordSigningSecrets(sim);
		return result;
	}

	const credit = () => ({
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0].id,
	});
	const leadFields = (value: IDataObject) =>
		({
			mappingMode: 'defineBelow',
			value,
			matchingColumns: [],
			schema: [],
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		}) as unknown as ResourceMapperValue;

	beforeAll(async () => {
		capture.start();
		sim = await startSimulator({
			allowInsecureLoopbackWebhooks: true,
			seed: 77,
			delivery: { baseDelayMs: 10 },
		});
		key = sim.control.createKey({ clientSecret: canary('MAIN'), selfServe: true });
		registry.add('client secret', key.clientSecret);
		harness = new N8nHarness(sim, { clientId: key.clientId, clientSecret: key.clientSecret });
		recordTokens(harness);
	});

	// After whichever tests ran, in any order or filtered: secrets learnt late (e.g. tokens
	// issued in the last test) are checked against everything captured before them.
	afterAll(async () => {
		try {
			expectNoLeaks();
			// For the report: whether errors of ours carry a `cause` (n8n's NodeApiError keeps the
			// error it wraps there); when they do, it was scanned like everything else.
			const withCause = causes.filter((entry) => entry.hasCause).map((entry) => entry.where);
			if (process.env.AUDIT_VERBOSE)
				console.log(
					`errors with a cause: ${withCause.length}/${causes.length}: ${withCause.join('; ')}`,
				);
		} finally {
			capture.stop();
			await sim.close();
		}
	});

	afterEach(() => {
		sim.control.clearFaults();
	});

	it('the scanner finds a planted secret in every form it looks for', () => {
		const planted = new SecretRegistry();
		const secret = canary('PLANTED');
		planted.add('client secret', secret);
		const error = new Error('outer', { cause: new Error(`inner ${secret.slice(0, 30)}`) });
		expect(leaksIn(planted, 'cause', error).length).toBeGreaterThan(0);
		expect(
			leaksIn(planted, 'base64', { header: `Basic ${Buffer.from(secret).toString('base64')}` })
				.length,
		).toBeGreaterThan(0);
		expect(
			leaksIn(planted, 'map', new Map([['k', [{ deep: `x${secret}y` }]]])).length,
		).toBeGreaterThan(0);
		expect(leaksIn(planted, 'clean', { message: 'nothing here', nested: [1, 'two'] })).toEqual([]);
	});

	it('normal operations (tokens issued, a subscription created): only Webhook Subscription > Create shows a signing secret', async () => {
		expect(
			(await run('Lead Schema > Get', { resource: 'leadSchema', operation: 'get' })).error,
		).toBeUndefined();
		const created = await run('Lead > Create', {
			resource: 'lead',
			operation: 'create',
			...credit(),
			leadFields: leadFields({
				firstName: 'Ada',
				lastName: 'Canary',
				email: 'ada.canary@example.com',
			}),
		});
		expect(created.error).toBeUndefined();
		const leadId = String(created.items[0].json.id);
		expect(
			(
				await run('Lead > Get', {
					resource: 'lead',
					operation: 'get',
					leadId: { __rl: true, mode: 'id', value: leadId },
				})
			).error,
		).toBeUndefined();
		expect(
			(await run('Lead > Get Many', { resource: 'lead', operation: 'getMany', returnAll: true }))
				.error,
		).toBeUndefined();
		expect(
			(
				await run('Lead > Update', {
					resource: 'lead',
					operation: 'update',
					leadId: { __rl: true, mode: 'id', value: leadId },
					leadFields: leadFields({ notes: 'audited' }),
				})
			).error,
		).toBeUndefined();
		expect(
			(
				await run('Lead > Create or Update', {
					resource: 'lead',
					operation: 'upsert',
					matchField: 'email',
					...credit(),
					leadFields: leadFields({
						firstName: 'Ada',
						lastName: 'Canary',
						email: 'ADA.CANARY@example.com',
					}),
				})
			).error,
		).toBeUndefined();

		const subscription = await run('Webhook Subscription > Create', {
			resource: 'webhookSubscription',
			operation: 'create',
			topic: 'lead/create',
			url: 'https://receiver.example.com/hook',
		});
		expect(subscription.error).toBeUndefined();
		const secret = subscription.items[0].json.signingSecret as string;
		expect(registry.has(secret)).toBe(true);
		expect(
			(
				await run('Webhook Subscription > Get Many', {
					resource: 'webhookSubscription',
					operation: 'getMany',
					returnAll: true,
				})
			).error,
		).toBeUndefined();
		const id = String(subscription.items[0].json.id);
		expect(
			(
				await run('Webhook Subscription > Delete', {
					resource: 'webhookSubscription',
					operation: 'delete',
					subscriptionId: id,
				})
			).error,
		).toBeUndefined();
		expect(registry.count('access token')).toBeGreaterThanOrEqual(1);
		expectNoLeaks();
		// the one allowed place was really there, and skipped only there
		expect(allowedSigningSecrets).toContain(secret);
	});

	it('credential errors: wrong secret, its Test button, revoked key, wrong and invalid audience, unknown company, secret sent as the token', async () => {
		const getLead = {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: 'a'.repeat(24) },
		};
		const wrongSecret = canary('WRONG');
		registry.add('client secret', wrongSecret);
		const wrong = harness.saveCredential(
			'wrong-secret',
			simulatorCredentialData(sim, { clientId: key.clientId, clientSecret: wrongSecret }),
		);
		expect(
			(await run('wrong Client Secret', getLead, [{}], { credential: wrong })).error?.message,
		).toMatch(/rejected the 'Client ID' or 'Client Secret'/);
		const tested = await testCredential(
			harness,
			simulatorCredentialData(sim, { clientId: key.clientId, clientSecret: wrongSecret }),
		);
		observe('credential Test button, wrong secret', tested);
		expect(tested.status).toBe('Error');

		// A second key: used, then revoked; its token works until it expires, then no new one is issued.
		const doomed = sim.control.createKey({ clientSecret: canary('REVOKED'), selfServe: true });
		registry.add('client secret', doomed.clientSecret);
		const doomedCredential = harness.saveCredential(
			'revoked',
			simulatorCredentialData(sim, {
				clientId: doomed.clientId,
				clientSecret: doomed.clientSecret,
			}),
		);
		expect(
			(
				await run('revoked key, before', { resource: 'leadSchema', operation: 'get' }, [{}], {
					credential: doomedCredential,
				})
			).error,
		).toBeUndefined();
		sim.control.revokeKey(doomed.clientId);
		sim.control.expireTokens();
		expect(
			(
				await run('revoked key', { resource: 'leadSchema', operation: 'get' }, [{}], {
					credential: doomedCredential,
				})
			).error?.message,
		).toMatch(/revoked/);

		const otherEnvironment = harness.saveCredential(
			'wrong-audience',
			simulatorCredentialData(sim, {
				clientId: key.clientId,
				clientSecret: key.clientSecret,
				audience: sim.devUrl,
			}),
		);
		expect(
			(
				await run('audience of the other environment', getLead, [{}], {
					credential: otherEnvironment,
				})
			).error?.message,
		).toMatch(/another environment/);
		const invalidAudience = harness.saveCredential(
			'invalid-audience',
			simulatorCredentialData(sim, {
				clientId: key.clientId,
				clientSecret: key.clientSecret,
				audience: 'https://nowhere.example.com',
			}),
		);
		expect(
			(await run('invalid audience', getLead, [{}], { credential: invalidAudience })).error
				?.message,
		).toMatch(/audience/i);
		const unknownCompany = harness.saveCredential(
			'unknown-company',
			simulatorCredentialData(sim, {
				clientId: key.clientId,
				clientSecret: key.clientSecret,
				companyId: 'f'.repeat(24),
			}),
		);
		expect(
			(await run('unknown company', getLead, [{}], { credential: unknownCompany })).error?.message,
		).toMatch(/Unknown Company ID/);

		// A stored "token" that is the Client Secret: the service says so, n8n renews the token.
		const confused = harness.saveCredential(
			'secret-as-token',
			simulatorCredentialData(sim, {
				clientId: key.clientId,
				clientSecret: key.clientSecret,
				accessToken: key.clientSecret,
			}),
		);
		expect(
			(
				await run(
					'Client Secret stored as the token',
					{ resource: 'leadSchema', operation: 'get' },
					[{}],
					{ credential: confused },
				)
			).error,
		).toBeUndefined();
		expectNoLeaks();
	});

	it('request errors: 404, validation (node and service), 429 until the budget runs out, 5xx, 5xx after the effect, dropped connections, failing token requests', async () => {
		const getLead = (id: string) => ({
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: id },
		});
		expect((await run('404', getLead('b'.repeat(24)))).error?.message).toMatch(/does not exist/);
		expect(
			(
				await run('validation in the node', {
					resource: 'lead',
					operation: 'create',
					...credit(),
					leadFields: leadFields({ firstName: 'No', email: 'not-an-email' }),
				})
			).error?.message,
		).toMatch(/Invalid lead field/);
		expect(
			(
				await run('validation by the service', {
					resource: 'lead',
					operation: 'create',
					partnerOrganizationId: sim.defaultPartnerOrganization.id,
					agentId: sim.otherAgent.id,
					leadFields: leadFields({ firstName: 'A', lastName: 'B', email: 'a.b@example.com' }),
				})
			).error?.message,
		).toMatch(/rejected/);

		sim.control.setFaults('GET /leads/:id', { rate429: 1, retryAfterSeconds: 0 });
		expect((await run('429 exhausted', getLead('c'.repeat(24)))).error?.message).toMatch(/429/);
		sim.control.setFaults('GET /leads/:id', { rate5xx: 1 });
		expect((await run('5xx', getLead('c'.repeat(24)))).error?.message).toMatch(
			/could not handle the request \(HTTP 50\d\)/,
		);
		sim.control.setFaults('GET /leads/:id', { dropRate: 1 });
		expect((await run('dropped connection', getLead('c'.repeat(24)))).error?.message).toMatch(
			/Could not reach/,
		);
		sim.control.setFaults('POST /leads', { rate5xxAfterEffect: 1 });
		const unclear = await run(
			'create answered 5xx after its effect',
			{
				resource: 'lead',
				operation: 'create',
				...credit(),
				leadFields: leadFields({
					firstName: 'Maybe',
					lastName: 'Created',
					email: 'maybe@example.com',
				}),
			},
			[{}],
			{ continueOnFail: true },
		);
		expect(String(unclear.items[0].json.description)).toMatch(/not sent again/);
		sim.control.clearFaults();

		sim.control.expireTokens();
		sim.control.setFaults('POST /oauth/token', { rate5xx: 1 });
		expect(
			(await run('token request 5xx', { resource: 'leadSchema', operation: 'get' })).error?.message,
		).toMatch(/token issuer/);
		sim.control.setFaults('POST /oauth/token', { dropRate: 1 });
		expect(
			(await run('token request dropped', { resource: 'leadSchema', operation: 'get' })).error
				?.message,
		).toMatch(/token issuer/);
		sim.control.clearFaults();
		expectNoLeaks();
	});

	it('trigger: HTTPS refusal, bad signatures, a failing lead fetch, failing subscription create and delete; executions and answers', async () => {
		// The real service's HTTPS rule: a simulator that refuses http receivers.
		const strict = await startSimulator({ seed: 78 });
		try {
			const strictKey = strict.control.createKey({
				clientSecret: canary('HTTPS'),
				selfServe: true,
			});
			registry.add('client secret', strictKey.clientSecret);
			const strictHarness = new N8nHarness(strict, {
				clientId: strictKey.clientId,
				clientSecret: strictKey.clientSecret,
			});
			recordTokens(strictHarness);
			const strictHost = await TriggerHost.start(strictHarness, {
				parameters: { events: ['lead/create'] },
			});
			const refused = await strictHost.activate().then(
				() => undefined,
				(error: unknown) => error,
			);
			expect((refused as Error).message).toMatch(/HTTPS/);
			observe('trigger activation refused (HTTPS rule)', refused);
			await strictHost.close();
		} finally {
			await strict.close();
		}

		const host = await TriggerHost.start(harness, {
			parameters: { events: ['lead/create', 'lead/update', 'lead/delete'], fetchFullLead: true },
		});
		try {
			await host.activate();
			recordSigningSecrets(sim);
			expect(registry.count('signing secret')).toBeGreaterThanOrEqual(3);
			const url = host.webhookUrl();
			const post = async (where: string, body: string, headers: Record<string, string>) => {
				const sendable = { ...headers };
				delete sendable['content-length'];
				const response = await fetch(url, { method: 'POST', body, headers: sendable });
				observe(`webhook answer: ${where}`, {
					status: response.status,
					headers: Object.fromEntries(response.headers),
					body: await response.text(),
				});
				return response.status;
			};
			const secretOf = (topic: string) =>
				sim.control
					.listSubscriptions()
					.find((subscription) => subscription.topic === topic && subscription.url === url)
					?.signingSecret as string;
			const lead = sim.control.seedLeads([
				{ firstName: 'Trig', lastName: 'Ger', email: 'trig@example.com' },
			])[0];
			const good = signedDelivery(
				secretOf('lead/create'),
				lead.id,
				'lead/create',
				new Date().toISOString(),
			);

			expect(await post('no signature', good.rawBody, { 'content-type': 'application/json' })).toBe(
				401,
			);
			expect(
				await post('forged signature', good.rawBody, {
					...good.headers,
					'x-svc-signature-v2': 'ab'.repeat(32),
				}),
			).toBe(401);
			// well formed, signed with the secret of this trigger's lead/update subscription, for a lead/create event
			const otherTopic = signedDelivery(
				secretOf('lead/update'),
				lead.id,
				'lead/create',
				new Date().toISOString(),
			);
			expect(otherTopic.headers['x-svc-signature-v2']).toMatch(/^[0-9a-f]{64}$/);
			// the service's own bytes, though no event of that topic: acknowledged (a retry carries the same), not run
			expect(await post('other topic secret', otherTopic.rawBody, otherTopic.headers)).toBe(200);
			// the event is accepted all the same; its run waits and logs why (observed below)
			sim.control.setFaults('GET /leads/:id', { rate5xx: 1 });
			expect(await post('lead fetch fails', good.rawBody, good.headers)).toBe(200);
			sim.control.setFaults('GET /leads/:id', { dropRate: 1 });
			expect(await post('lead fetch dropped', good.rawBody, good.headers)).toBe(200);
			sim.control.clearFaults();
			expect(await post('accepted', good.rawBody, good.headers)).toBe(200);
			expect(await post('duplicate', good.rawBody, good.headers)).toBe(200);
			// deliveries made by the service itself
			sim.control.portalUpdateLead(lead.id, { value: 42 });
			sim.control.portalDeleteLead(lead.id);
			await sim.control.waitForDeliveries(10_000);
			await host.settle();
			expect(host.executions.length).toBeGreaterThanOrEqual(3);
			for (const execution of host.executions) observe('trigger execution', execution.run);
			for (const crash of host.crashes) observe('trigger crash', crash);
			expect(host.crashes).toEqual([]);

			// Deactivation failing, then subscription creation failing (before and after its effect).
			// The unpublish goes through: the service's refusal is logged (captured and scanned) and
			// the subscriptions stay recorded, to be removed at the next publish or unpublish.
			sim.control.setFaults('DELETE /subscriptions/:id', { rate5xx: 1 });
			const logsBefore = capture.records.length;
			await host.deactivate();
			expect(
				capture.records
					.slice(logsBefore)
					.some((record) => /could not remove \d+ webhook subscription/.test(String(record.args))),
			).toBe(true);
			expect(
				sim.control.listSubscriptions().filter((subscription) => subscription.url === url).length,
			).toBeGreaterThan(0);
			sim.control.clearFaults();
			await host.activate();
			await host.deactivate();
			for (const faults of [{ rate5xx: 1 }, { rate5xxAfterEffect: 1 }, { dropRate: 1 }]) {
				sim.control.setFaults('POST /subscriptions', faults);
				const failed = await host.activate().then(
					() => undefined,
					(error: unknown) => error,
				);
				recordSigningSecrets(sim);
				expect(failed).toBeInstanceOf(Error);
				observe(`trigger activation failed (${JSON.stringify(faults)})`, failed);
				sim.control.clearFaults();
			}
			expect(
				sim.control.listSubscriptions().filter((subscription) => subscription.url === url),
			).toEqual([]);
		} finally {
			await host.close();
		}
		expectNoLeaks();
	});

	it('a short soak with every fault at once, under its own canary key', async () => {
		const result = await runSoak({
			seconds: Number(process.env.AUDIT_SOAK_SECONDS ?? 6),
			seed: 3,
			tokenExpiryEverySeconds: 2,
			clientSecret: canary('SOAK'),
			observe,
			log: (line) => console.log(`soak: ${line}`),
		});
		registry.add('client secret', result.secrets.clientSecret);
		for (const token of result.secrets.accessTokens) registry.add('access token', token);
		for (const secret of result.secrets.signingSecrets) registry.add('signing secret', secret);
		observe('soak figures', result.figures);
		expect(result.secrets.accessTokens.length).toBeGreaterThanOrEqual(2);
		expect(result.secrets.signingSecrets.length).toBeGreaterThanOrEqual(3);
		expect(result.figures.items.pushed).toBeGreaterThan(0);
		expect(result.figures.events.executionsStarted).toBeGreaterThan(0);
		expectNoLeaks();
	});
});
