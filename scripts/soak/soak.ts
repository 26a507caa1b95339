/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
import { N8nHarness } from '../../test/harness/harness';
import { TriggerHost } from '../../test/harness/webhooks';
import { startSimulator } from '../../test/simulator';
import type { Simulator } from '../../test/simulator/types';
import type { SoakFigures } from './figures';
import { eventFigures, itemFigures, leadFigures, nonZeroExpectations } from './figures';
import { describeFaults, every, injectAllFaults } from './faults';
import { Prng } from '../../test/simulator/ids';
import { emptyTally, LeadSource, pushUntil } from './workload';

/**
 * A bounded fault soak: the simulator with every fault injected at once, an active
 * trigger workflow receiving its deliveries over loopback HTTP, and two action-node
 * workflows (Create; Create or Update) pushing leads through n8n-core, until the time is up.
 * Then the deliveries drain, the trigger is deactivated (faults still on), and the figures
 * are computed from what the simulator holds and what n8n ran.
 */

export interface SoakOptions {
	/** how long the workflows push leads; draining and deactivation come on top */
	seconds: number;
	seed?: number;
	tokenExpiryEverySeconds?: number;
	batchSize?: number;
	parallelRequests?: number;
	/**
	 * Let the portal delete older leads while the workflows run (on in `npm run soak`): a
	 * delete shifts a skip/limit listing under way, which Create or Update must survive
	 * without creating a lead twice.
	 */
	portalDeletesOlderLeads?: boolean;
	/** use a new key with this Client Secret instead of the simulator's default key */
	clientSecret?: string;
	/** every run, execution, error and answer, for the secrets audit */
	observe?: (where: string, value: unknown) => void;
	log?: (line: string) => void;
}

export interface SoakResult {
	figures: SoakFigures;
	/** the figures that should be 0 and are not */
	failures: string[];
	/** what must never show up in logs, errors or outputs */
	secrets: { clientSecret: string; accessTokens: string[]; signingSecrets: string[] };
}

const DRAIN_TIMEOUT_MS = 120_000;
const ACTIVATION_ATTEMPTS = 10;

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * The portal acting on its own leads (never on pushed ones, so duplicates stay countable):
 * creating, updating and deleting, which emits all three topics. By default only a lead
 * created in the same tick is deleted: it is then the newest one, so no listing under way
 * shifts. With `deleteOlderLeads`, older ones are deleted too, which shifts the pages of
 * a skip/limit listing under way (see SoakOptions.portalDeletesOlderLeads).
 */
function portalActor(
	sim: Simulator,
	seed: number,
	deleteOlderLeads: boolean,
): { stop: () => void } {
	const random = new Prng(seed);
	const own: string[] = [];
	let serial = 0;
	const timer = setInterval(() => {
		try {
			const roll = random.next();
			const email = () => `portal-${serial++}@portal.example.com`;
			if (own.length === 0 || roll < 0.35) {
				own.push(
					sim.control.portalCreateLead({ firstName: 'Portal', lastName: 'Lead', email: email() })
						.id,
				);
			} else if (roll < 0.7) {
				sim.control.portalUpdateLead(random.pick(own), { value: random.int(5000) });
			} else if (deleteOlderLeads) {
				const index = random.int(own.length);
				sim.control.portalDeleteLead(own[index]);
				own.splice(index, 1);
			} else {
				// created, changed and deleted at once: lead/create, lead/update, lead/delete
				const id = sim.control.portalCreateLead({
					firstName: 'Short',
					lastName: 'Lived',
					email: email(),
				}).id;
				sim.control.portalUpdateLead(id, { value: 1 });
				sim.control.portalDeleteLead(id);
			}
		} catch {
			// a portal action racing another one: nothing to count
		}
	}, 150);
	return { stop: () => clearInterval(timer) };
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
	const log = options.log ?? (() => {});
	const seed = options.seed ?? 1;
	const tokenExpiry = options.tokenExpiryEverySeconds ?? 5;
	const started = Date.now();
	const sim = await startSimulator({
		allowInsecureLoopbackWebhooks: true,
		seed,
		delivery: { baseDelayMs: 20, maxAttempts: 10, timeoutMs: 5_000, concurrency: 8 },
	});
	const key = options.clientSecret
		? sim.control.createKey({ clientSecret: options.clientSecret, selfServe: true })
		: sim.defaultKey;
	const harness = new N8nHarness(sim, { clientId: key.clientId, clientSecret: key.clientSecret });
	const accessTokens = new Set<string>();
	const signingSecrets = new Set<string>();
	harness.credentialsHelper.onAccessTokenSaved = (token) => accessTokens.add(token);
	const noteSecrets = () => {
		for (const subscription of sim.control.listSubscriptions())
			signingSecrets.add(subscription.signingSecret);
	};
	const host = await TriggerHost.start(harness, {
		parameters: { events: ['lead/create', 'lead/update', 'lead/delete'], fetchFullLead: true },
	});
	const expiries = every(tokenExpiry, () => sim.control.expireTokens());
	try {
		injectAllFaults(sim.control);

		// A user activates again until it works; each failure must leave nothing behind.
		let activationAttempts = 0;
		for (;;) {
			activationAttempts++;
			try {
				await host.activate();
				break;
			} catch (error) {
				options.observe?.('trigger activation error', error);
				noteSecrets();
				log(`activation attempt ${activationAttempts} failed: ${(error as Error).message}`);
				if (activationAttempts >= ACTIVATION_ATTEMPTS) throw error;
			}
		}
		noteSecrets();
		log(
			`trigger active after ${activationAttempts} attempt(s); pushing leads for ${options.seconds} s`,
		);

		const tally = emptyTally();
		const source = new LeadSource(seed);
		const pushStarted = Date.now();
		const deadline = pushStarted + options.seconds * 1000;
		const portal = portalActor(sim, seed + 1, options.portalDeletesOlderLeads === true);
		const progress = setInterval(() => {
			log(
				`${Math.round((Date.now() - pushStarted) / 1000)} s: ${tally.pushed} items pushed, ${host.executions.length} executions`,
			);
		}, 15_000);
		const push = {
			deadline,
			batchSize: options.batchSize ?? 8,
			parallelRequests: options.parallelRequests ?? 4,
			tally,
			observe: options.observe,
		};
		await Promise.all([
			pushUntil(harness, sim, source, 'create', push),
			pushUntil(harness, sim, source, 'upsert', push),
		]);
		const pushSeconds = (Date.now() - pushStarted) / 1000;
		clearInterval(progress);
		portal.stop();
		const tokenExpiriesForced = expiries.stop();

		// Drain with the faults still on: retries of failed deliveries are part of the test.
		log('draining deliveries');
		await sim.control.waitForDeliveries(DRAIN_TIMEOUT_MS);
		await withTimeout(host.settle(), DRAIN_TIMEOUT_MS, 'the trigger executions');
		for (const execution of host.executions) options.observe?.('trigger execution', execution.run);
		for (const crash of host.crashes) options.observe?.('trigger crash', crash);
		const events = eventFigures(
			sim.control.deliveries(),
			host.executions,
			host.statuses(),
			host.crashes.length,
		);
		noteSecrets();

		log('deactivating the trigger (faults still on)');
		let deactivationError: string | null = null;
		try {
			await host.deactivate();
		} catch (error) {
			options.observe?.('trigger deactivation error', error);
			deactivationError = (error as Error).message;
		}
		const orphans = sim.control
			.listSubscriptions()
			.filter((subscription) => subscription.url === host.webhookUrl()).length;

		sim.control.clearFaults();
		const stats = sim.control.stats();
		const figures: SoakFigures = {
			durationSeconds: Math.round((Date.now() - started) / 100) / 10,
			pushSeconds: Math.round(pushSeconds * 10) / 10,
			seed,
			portalDeletesOlderLeads: options.portalDeletesOlderLeads === true,
			items: itemFigures(tally),
			leads: leadFigures(sim.control.listLeads(), tally.history),
			events,
			subscriptions: { activationAttempts, deactivationError, orphansAfterDeactivation: orphans },
			auth: {
				tokenRequests: stats.tokenRequests,
				tokensIssued: stats.tokensIssued,
				tokenExpiriesForced,
			},
			requests: stats.statusesByRoute,
			faults: describeFaults(tokenExpiry),
		};
		if (tally.unclearSamples.length > 0)
			log(`unclear failures, e.g.: ${tally.unclearSamples.join(' | ')}`);
		if (tally.crashSamples.length > 0) log(`crashed runs, e.g.: ${tally.crashSamples.join(' | ')}`);
		return {
			figures,
			failures: nonZeroExpectations(figures),
			secrets: {
				clientSecret: key.clientSecret,
				accessTokens: [...accessTokens],
				signingSecrets: [...signingSecrets],
			},
		};
	} finally {
		expiries.stop();
		await host.close().catch(() => undefined);
		await sim.close();
	}
}
