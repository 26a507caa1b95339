/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
import {
	DEFAULT_PERSONALITY,
	PERSONALITIES,
	personalityNamed,
	startSimulator,
	type Personality,
} from './index';
import { PERSONALITY_ENV_VAR } from './personality';
import { apiClient, send, tokenFor, validLead } from './test-helpers';
import type { Simulator } from './types';

/**
 * Personalities (personality.ts): each axis answers as it says, over loopback HTTP.
 * Each test starts a simulator with the default personality changed on the axis under test
 * (plus what that axis needs), so a failure names the axis.
 */

const started: Simulator[] = [];

async function simWith(
	changes: Partial<Personality>,
	options: Parameters<typeof startSimulator>[0] = {},
) {
	const personality: Personality = { ...DEFAULT_PERSONALITY, name: 'test', ...changes };
	const sim = await startSimulator({
		seed: 12,
		allowInsecureLoopbackWebhooks: true,
		...options,
		personality,
	});
	started.push(sim);
	return { sim, client: apiClient(sim, await tokenFor(sim)) };
}

afterEach(async () => {
	await Promise.all(started.splice(0).map((sim) => sim.close()));
});

/** Every lead id in the order GET /leads walks them with skip/limit, and the sizes of the pages. */
async function walkWithSkip(
	client: ReturnType<typeof apiClient>,
	limit: number,
	bodies: Personality['bodies'],
) {
	const ids: string[] = [];
	const sizes: number[] = [];
	for (let page = 0; page < 100; page++) {
		const answer = await client.api('GET', `/leads?skip=${ids.length}&limit=${limit}`);
		expect(answer.status).toBe(200);
		const items = (bodies === 'bare' ? answer.body : answer.body.data) as Array<{ id: string }>;
		if (items.length === 0) return { ids, sizes };
		sizes.push(items.length);
		ids.push(...items.map((lead) => lead.id));
	}
	throw new Error('GET /leads did not reach an empty page within 100 pages');
}

describe('presets', () => {
	it('start with the default, have unique kebab-case names, and take every variant of every axis', () => {
		expect(PERSONALITIES[0]).toBe(DEFAULT_PERSONALITY);
		expect(DEFAULT_PERSONALITY.name).toBe('default');
		const names = PERSONALITIES.map((p) => p.name);
		expect(new Set(names).size).toBe(names.length);
		for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
		const variants: Record<string, unknown[]> = {
			listHints: ['none', 'hasMore', 'next'],
			bodies: ['wrapped', 'bare'],
			picklistShape: [
				'picklistValues-objects',
				'options-strings',
				'values-objects',
				'options-objects',
			],
			patchAnswer: ['full', 'partial', 'empty', 'noContent'],
			deleteAnswer: ['ok', 'noContent'],
			authFailureStatus: [401, 403],
			errorBodies: ['json', 'text', 'html'],
			ids: ['hex24', 'uuid', 'numeric'],
			timestamps: ['millis', 'seconds'],
			retryAfter: ['seconds', 'httpDate'],
			leadCreateStatus: [200, 201],
			listOrder: ['oldestFirst', 'newestFirst', 'lastChangedLast'],
			dateHeader: ['serviceClock', 'none'],
			tieOrder: ['creation', 'lastChange'],
		};
		for (const [axis, values] of Object.entries(variants)) {
			const taken = new Set(PERSONALITIES.map((p) => p[axis as keyof Personality]));
			expect({ axis, taken: [...taken].sort() }).toEqual({ axis, taken: [...values].sort() });
		}
		const caps = PERSONALITIES.map((p) => p.listPageCap);
		expect(caps).toContain(null);
		expect(caps).toContain(7);
		expect(caps.some((cap) => cap === 20 || cap === 30)).toBe(true);
		// Bare bodies have no room for hints.
		for (const p of PERSONALITIES) if (p.bodies === 'bare') expect(p.listHints).toBe('none');
	});

	it('personalityNamed finds a preset and names the known ones for an unknown name', () => {
		expect(personalityNamed('capped-7-bare-403-text').listPageCap).toBe(7);
		expect(() => personalityNamed('nope')).toThrow(
			/Unknown simulator personality "nope".*default.*capped-7-bare-403-text/,
		);
	});
});

describe('selection', () => {
	const saved = process.env[PERSONALITY_ENV_VAR];
	afterEach(() => {
		if (saved === undefined) delete process.env[PERSONALITY_ENV_VAR];
		else process.env[PERSONALITY_ENV_VAR] = saved;
	});

	it('takes a name, else $PARTNER_SIM_PERSONALITY, else the default; the option wins over the variable', async () => {
		process.env[PERSONALITY_ENV_VAR] = 'capped-20-hasmore-html';
		const fromEnv = await startSimulator();
		started.push(fromEnv);
		expect(fromEnv.personality).toBe(personalityNamed('capped-20-hasmore-html'));
		const byName = await startSimulator({ personality: 'capped-7-bare-403-text' });
		started.push(byName);
		expect(byName.personality.name).toBe('capped-7-bare-403-text');
		const info = await send(byName.controlUrl);
		expect(info.body.data.personality).toBe('capped-7-bare-403-text');
		delete process.env[PERSONALITY_ENV_VAR];
		const plain = await startSimulator();
		started.push(plain);
		expect(plain.personality).toBe(DEFAULT_PERSONALITY);
	});

	it('refuses an unknown name in the option or the variable, and a page cap below 1', async () => {
		await expect(startSimulator({ personality: 'nope' })).rejects.toThrow(/use one of default, /);
		await expect(
			startSimulator({ personality: { ...DEFAULT_PERSONALITY, name: 'zero', listPageCap: 0 } }),
		).rejects.toThrow(/"zero": listPageCap must be null or a positive integer \(got 0\)/);
		process.env[PERSONALITY_ENV_VAR] = 'also-nope';
		await expect(startSimulator()).rejects.toThrow(/"also-nope"/);
	});
});

describe('bodies', () => {
	it('bare: lead, list, schema and subscriptions without the envelope; the token answer is unchanged', async () => {
		const { sim, client } = await simWith({ bodies: 'bare' });
		const created = await client.api('POST', '/leads', validLead(sim));
		expect(created.status).toBe(201);
		expect(created.body).toEqual(
			expect.objectContaining({ id: expect.any(String), firstName: 'Ada', status: 'active' }),
		);
		expect(created.body.data).toBeUndefined();
		expect((await client.api('GET', `/leads/${created.body.id}`)).body).toEqual(created.body);
		expect((await client.api('GET', '/leads')).body).toEqual([created.body]);
		expect((await client.api('GET', '/schema/lead')).body.unifiedFields.length).toBeGreaterThan(5);
		const sub = await client.webhooks('POST', '', {
			topic: 'lead/create',
			url: 'http://127.0.0.1:9/hook',
		});
		expect(sub.body).toEqual(
			expect.objectContaining({ id: expect.any(String), signingSecret: expect.any(String) }),
		);
		const subs = await client.webhooks('GET');
		expect(subs.body).toEqual([
			{
				id: sub.body.id,
				topic: 'lead/create',
				url: 'http://127.0.0.1:9/hook',
				createdAt: sub.body.createdAt,
			},
		]);
		expect((await client.webhooks('DELETE', `/${sub.body.id}`)).body).toEqual({
			id: sub.body.id,
			deleted: true,
		});
		// The control API keeps its own envelope.
		expect((await send(`${sim.controlUrl}/leads`)).body.data).toHaveLength(1);
	});

	it('wrapped: { data, context.requestId, status } as by default', async () => {
		const { sim, client } = await simWith({ bodies: 'wrapped', leadCreateStatus: 200 });
		const created = await client.api('POST', '/leads', validLead(sim));
		expect(created.status).toBe(200);
		expect(created.body).toEqual({
			data: expect.objectContaining({ firstName: 'Ada' }),
			context: { requestId: created.headers.get('x-request-id') },
			status: 200,
		});
	});
});

describe('listPageCap and listHints', () => {
	it('cap 7: skip/limit walks 50 leads in pages of at most 7, each once, in creation order', async () => {
		const { sim, client } = await simWith({ listPageCap: 7, bodies: 'bare' });
		const seeded = sim.control.seedLeads(50).map((lead) => lead.id);
		const walk = await walkWithSkip(client, 100, 'bare');
		expect(walk.sizes).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
		expect(walk.ids).toEqual(seeded);
		// A limit below the cap is honoured; limit is still validated 1..100.
		expect((await client.api('GET', '/leads?limit=3')).body).toHaveLength(3);
		expect((await client.api('GET', '/leads?limit=101')).status).toBe(400);
		expect((await client.api('GET', '/leads?limit=0')).status).toBe(400);
	});

	it('tieOrder lastChange: an update moves its lead to the end of its createdAt ties (first, newest first), not past them', async () => {
		for (const listOrder of ['oldestFirst', 'newestFirst'] as const) {
			const { sim, client } = await simWith({ listOrder, tieOrder: 'lastChange' });
			const ties = sim.control.seedLeads(5).map((lead) => lead.id);
			const later = sim.control.seedLeads([{ createdAt: '2099-01-01T00:00:00.000Z' }])[0].id;
			sim.control.portalUpdateLead(ties[1], { value: 1 });
			const inCreationOrder = [ties[0], ties[2], ties[3], ties[4], ties[1], later];
			const walk = await walkWithSkip(client, 100, 'wrapped');
			expect({ listOrder, ids: walk.ids }).toEqual({
				listOrder,
				ids: listOrder === 'oldestFirst' ? inCreationOrder : [...inCreationOrder].reverse(),
			});
		}
	});

	it('newestFirst: the same walk, newest lead first', async () => {
		const { sim, client } = await simWith({ listPageCap: 20, listOrder: 'newestFirst' });
		const seeded = sim.control.seedLeads(45).map((lead) => lead.id);
		const walk = await walkWithSkip(client, 50, 'wrapped');
		expect(walk.sizes).toEqual([20, 20, 5]);
		expect(walk.ids).toEqual([...seeded].reverse());
	});

	it('hasMore: true until the page that reaches the end, false on it and after it', async () => {
		const { sim, client } = await simWith({ listPageCap: 20, listHints: 'hasMore' });
		sim.control.seedLeads(40);
		const pages = await Promise.all(
			[0, 20, 40, 60].map(
				async (skip) => (await client.api('GET', `/leads?skip=${skip}&limit=50`)).body,
			),
		);
		expect(pages.map((page) => [page.data.length, page.hasMore])).toEqual([
			[20, true],
			[20, false],
			[0, false],
			[0, false],
		]);
		expect(Object.keys(pages[0])).toEqual(['data', 'hasMore', 'context', 'status']);
	});

	it('next: a cursor that walks 50 leads (cap 7) and is null on the last page; skip/limit still work', async () => {
		const { sim, client } = await simWith({ listPageCap: 7, listHints: 'next' });
		const seeded = sim.control.seedLeads(50).map((lead) => lead.id);
		const ids: string[] = [];
		let answer = await client.api('GET', '/leads?limit=100');
		const cursors: unknown[] = [];
		for (let page = 0; page < 20 && answer.body.next !== null; page++) {
			ids.push(...answer.body.data.map((lead: { id: string }) => lead.id));
			cursors.push(answer.body.next);
			answer = await client.api(
				'GET',
				`/leads?limit=100&cursor=${encodeURIComponent(answer.body.next)}`,
			);
		}
		ids.push(...answer.body.data.map((lead: { id: string }) => lead.id));
		expect(answer.body.next).toBeNull();
		expect(ids).toEqual(seeded);
		expect(cursors).toHaveLength(7);
		for (const cursor of cursors) expect(cursor).toEqual(expect.any(String));
		// An exact end: the page that reaches the last lead says null, not a cursor to an empty page.
		const last = await client.api('GET', '/leads?skip=43&limit=7');
		expect([last.body.data.length, last.body.next]).toEqual([7, null]);
		const middle = await client.api('GET', '/leads?skip=10&limit=5');
		expect(middle.body.data.map((lead: { id: string }) => lead.id)).toEqual(seeded.slice(10, 15));
		expect(typeof middle.body.next).toBe('string');
		const bad = await client.api('GET', '/leads?cursor=123');
		expect([bad.status, bad.body.error.details[0].field]).toEqual([400, 'cursor']);
	});

	it('subscriptions page the same way when the personality pages them (default limit 20, cap, hints)', async () => {
		const { client } = await simWith({
			listPageCap: 7,
			listHints: 'hasMore',
			pagesSubscriptions: true,
		});
		const ids: string[] = [];
		for (let i = 0; i < 23; i++) {
			ids.push(
				(
					await client.webhooks('POST', '', {
						topic: 'lead/create',
						url: `http://127.0.0.1:9/hook/${i}`,
					})
				).body.data.id,
			);
		}
		const first = await client.webhooks('GET');
		expect([first.body.data.length, first.body.hasMore]).toEqual([7, true]);
		const walked: string[] = [];
		for (let page = 0; page < 10; page++) {
			const answer = await client.webhooks('GET', `?skip=${walked.length}&limit=100`);
			walked.push(...answer.body.data.map((sub: { id: string }) => sub.id));
			if (!answer.body.hasMore) break;
		}
		expect(walked).toEqual(ids);
		const { client: unpaged } = await simWith({ listPageCap: 7, pagesSubscriptions: false });
		for (let i = 0; i < 23; i++)
			await unpaged.webhooks('POST', '', {
				topic: 'lead/create',
				url: `http://127.0.0.1:9/h/${i}`,
			});
		expect((await unpaged.webhooks('GET')).body.data).toHaveLength(23);
	});

	it('a client that asks nothing gets the first page only (default limit 20, then the cap)', async () => {
		const { sim, client } = await simWith({ listPageCap: 30, pagesSubscriptions: true });
		sim.control.seedLeads(50);
		expect((await client.api('GET', '/leads')).body.data).toHaveLength(20);
		for (let i = 0; i < 25; i++)
			await client.webhooks('POST', '', { topic: 'lead/update', url: `http://127.0.0.1:9/s/${i}` });
		expect((await client.webhooks('GET')).body.data).toHaveLength(20);
	});
});
