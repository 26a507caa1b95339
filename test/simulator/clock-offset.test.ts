import { startSimulator } from './index';
import { apiClient, send, tokenFor } from './test-helpers';
import type { Simulator } from './types';

/**
 * The clock offset: the service stamps its times with its own clock, which may run ahead of
 * or behind the machine's (a real deployment's clocks differ; the spec does not say by how much).
 */

const TEN_MINUTES = 10 * 60_000;
/** far more than the time a test takes, far less than the offsets */
const SLACK_MS = 60_000;

let sim: Simulator | undefined;
afterEach(async () => {
	await sim?.close();
	sim = undefined;
});

function offsetOf(iso: unknown, beforeMs: number, afterMs: number): 'behind' | 'ahead' | 'same' {
	const ms = Date.parse(String(iso));
	if (ms < beforeMs - SLACK_MS) return 'behind';
	if (ms > afterMs + SLACK_MS) return 'ahead';
	return 'same';
}

describe('clock offset', () => {
	it.each([
		[-TEN_MINUTES, 'behind'],
		[TEN_MINUTES, 'ahead'],
		[0, 'same'],
	] as const)(
		'stamps createdAt and updatedAt %i ms off the machine clock (%s) through the API and the portal',
		async (clockOffsetMs, expected) => {
			sim = await startSimulator({ seed: 3, clockOffsetMs });
			const before = Date.now();
			const seeded = sim.control.seedLeads(1)[0];
			const portal = sim.control.portalCreateLead({ firstName: 'P', lastName: 'Q' });
			const updated = sim.control.portalUpdateLead(portal.id, { value: 3 });
			const client = apiClient(sim, await tokenFor(sim));
			const listed = await client.api('GET', '/leads');
			const after = Date.now();
			const stamps = [seeded.createdAt, portal.createdAt, updated.updatedAt];
			for (const lead of listed.body.data as Array<{ createdAt: string; updatedAt: string }>)
				stamps.push(lead.createdAt, lead.updatedAt);
			expect(stamps.map((iso) => offsetOf(iso, before, after))).toEqual(stamps.map(() => expected));
		},
	);

	it('changes at run time through the control API and the HTTP mirror, and reset() restores the option', async () => {
		sim = await startSimulator({ seed: 4, clockOffsetMs: TEN_MINUTES });
		const before = Date.now();
		sim.control.setClockOffset(-TEN_MINUTES);
		const behind = sim.control.portalCreateLead({ firstName: 'B', lastName: 'B' });
		await send(`${sim.controlUrl}/clock-offset`, { method: 'PUT', body: { offsetMs: 0 } });
		const same = sim.control.portalCreateLead({ firstName: 'S', lastName: 'S' });
		sim.control.reset();
		const ahead = sim.control.portalCreateLead({ firstName: 'A', lastName: 'A' });
		const after = Date.now();
		expect([behind, same, ahead].map((lead) => offsetOf(lead.createdAt, before, after))).toEqual([
			'behind',
			'same',
			'ahead',
		]);
		expect(() => sim?.control.setClockOffset(Number.NaN)).toThrow(/finite/);
	});

	it('stamps webhook event timestamps with the service clock', async () => {
		sim = await startSimulator({
			seed: 5,
			clockOffsetMs: -TEN_MINUTES,
			allowInsecureLoopbackWebhooks: true,
			delivery: { baseDelayMs: 5, timeoutMs: 200, maxAttempts: 1 },
		});
		const before = Date.now();
		const client = apiClient(sim, await tokenFor(sim));
		await client.webhooks('POST', '', { topic: 'lead/create', url: 'http://127.0.0.1:9/x' });
		sim.control.portalCreateLead({ firstName: 'E', lastName: 'E' });
		await sim.control.waitForDeliveries(5_000);
		const after = Date.now();
		const [attempt] = sim.control.deliveries();
		expect(offsetOf(attempt.timestamp, before, after)).toBe('behind');
	});
});
