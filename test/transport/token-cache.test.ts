/** The process's tokens per credential (tokenCache.ts), without a service: sharing, refusals, bounds. */
import type { ServiceConnection } from '../../nodes/shared/transport/connection';
import {
	credentialIdentity,
	noteRefusedToken,
	sharedToken,
	TOKEN_CACHE_BOUNDS,
} from '../../nodes/shared/transport/tokenCache';
import type { IssuedToken } from '../../nodes/shared/transport/tokenCache';

const BASE_CONNECTION: ServiceConnection = {
	environment: 'production',
	apiBaseUrl: 'https://api.example.com',
	audience: 'https://api.example.com',
	tokenUrl: 'https://auth.example.com/oauth/token',
	companyId: 'a'.repeat(24),
	clientId: 'client-1',
};

/** Each test's credential is new to the process: nothing cached for it by an earlier test. */
let connection = BASE_CONNECTION;
let tests = 0;

/** An issuer that counts its tokens and answers when told to. */
function issuer(lifetimeMs = 3_600_000) {
	let issued = 0;
	const waiting: Array<() => void> = [];
	return {
		get issued() {
			return issued;
		},
		issue: async (): Promise<IssuedToken> => {
			issued++;
			const token = { accessToken: `token-${issued}`, renewAfter: Date.now() + lifetimeMs };
			await new Promise<void>((resolve) => waiting.push(resolve));
			return token;
		},
		answerAll: () => waiting.splice(0).forEach((resolve) => resolve()),
	};
}

/** A credential that holds token-1 from `tokens`. */
async function holdingFirstToken(tokens: ReturnType<typeof issuer>): Promise<string> {
	const id = credentialIdentity(connection, 'secret-1');
	const first = sharedToken(id, tokens.issue);
	tokens.answerAll();
	expect((await first).accessToken).toBe('token-1');
	return id;
}

describe('tokens held by the process', () => {
	beforeEach(() => {
		connection = { ...BASE_CONNECTION, clientId: `client-${++tests}` };
	});

	it('everyone asking while a token is being issued shares it, and later askers get it too', async () => {
		const id = credentialIdentity(connection, 'secret-1');
		const tokens = issuer();
		const asked = [1, 2, 3, 4].map(() => sharedToken(id, tokens.issue));
		tokens.answerAll();
		const answers = await Promise.all(asked);
		expect(new Set(answers.map((token) => token.accessToken))).toEqual(new Set(['token-1']));
		expect((await sharedToken(id, tokens.issue)).accessToken).toBe('token-1');
		expect(tokens.issued).toBe(1);
	});

	it('a refused token is renewed once, however many requests it failed', async () => {
		const tokens = issuer();
		const id = await holdingFirstToken(tokens);
		for (let request = 0; request < 5; request++) noteRefusedToken(id, 'token-1');
		const renewed = [1, 2, 3].map(() => sharedToken(id, tokens.issue));
		tokens.answerAll();
		expect((await Promise.all(renewed)).map((token) => token.accessToken)).toEqual([
			'token-2',
			'token-2',
			'token-2',
		]);
		// a request sent with the old token and refused after the renewal changes nothing
		noteRefusedToken(id, 'token-1');
		expect((await sharedToken(id, tokens.issue)).accessToken).toBe('token-2');
		expect(tokens.issued).toBe(2);
	});

	it('a refused token issued elsewhere drops the one held here: the issuer may have ended them all', async () => {
		const tokens = issuer();
		const id = await holdingFirstToken(tokens);
		noteRefusedToken(id, 'token-of-another-process');
		const renewed = sharedToken(id, tokens.issue);
		tokens.answerAll();
		expect((await renewed).accessToken).toBe('token-2');
	});

	it('a token near expiry is not given out; one without a lifetime is kept until refused', async () => {
		const id = credentialIdentity(connection, 'secret-1');
		const expiring = issuer(-1);
		const first = sharedToken(id, expiring.issue);
		expiring.answerAll();
		await first;
		const second = sharedToken(id, expiring.issue);
		expiring.answerAll();
		expect((await second).accessToken).toBe('token-2');

		const other = credentialIdentity(connection, 'secret-2');
		const noLifetime = sharedToken(other, async () => ({ accessToken: 'kept', renewAfter: 0 }));
		expect((await noLifetime).accessToken).toBe('kept');
		expect(
			(await sharedToken(other, async () => ({ accessToken: 'new', renewAfter: 0 }))).accessToken,
		).toBe('kept');
	});

	it('a failed issue is not kept: the next asker tries again', async () => {
		const id = credentialIdentity(connection, 'secret-1');
		await expect(
			sharedToken(id, async () => await Promise.reject(new Error('issuer down'))),
		).rejects.toThrow('issuer down');
		expect(
			(await sharedToken(id, async () => ({ accessToken: 'ok', renewAfter: 0 }))).accessToken,
		).toBe('ok');
	});

	it('the identity is a hash of token address, client, audience and secret, and tells them apart', () => {
		const base = credentialIdentity(connection, 'secret-1');
		expect(base).toMatch(/^[0-9a-f]{64}$/);
		expect(base).not.toContain('secret-1');
		expect(credentialIdentity(connection, 'secret-2')).not.toBe(base);
		expect(
			credentialIdentity({ ...connection, audience: 'https://dev.example.com' }, 'secret-1'),
		).not.toBe(base);
		expect(credentialIdentity({ ...connection, clientId: 'client-2' }, 'secret-1')).not.toBe(base);
		expect(
			credentialIdentity(
				{ ...connection, tokenUrl: 'https://other.example.com/oauth/token' },
				'secret-1',
			),
		).not.toBe(base);
		expect(credentialIdentity({ ...connection, companyId: 'b'.repeat(24) }, 'secret-1')).toBe(base);
	});

	it(`holds at most ${TOKEN_CACHE_BOUNDS.credentials} credentials, the least recently used going first`, async () => {
		const count = TOKEN_CACHE_BOUNDS.credentials + 50;
		const ids = Array.from({ length: count }, (_, index) =>
			credentialIdentity(connection, `secret-${index}`),
		);
		for (const [index, id] of ids.entries())
			await sharedToken(id, async () => ({ accessToken: `token-${index}`, renewAfter: 0 }));
		// the newest 100 are held: each gives its own token back without asking
		const held = await Promise.all(
			ids
				.slice(count - TOKEN_CACHE_BOUNDS.credentials)
				.map(
					async (id) =>
						(await sharedToken(id, async () => ({ accessToken: 'x', renewAfter: 0 }))).accessToken,
				),
		);
		expect(held).toEqual(
			ids
				.slice(count - TOKEN_CACHE_BOUNDS.credentials)
				.map((_, index) => `token-${count - TOKEN_CACHE_BOUNDS.credentials + index}`),
		);
		// the one before them is not
		const firstForgotten = ids[count - TOKEN_CACHE_BOUNDS.credentials - 1]!;
		expect(
			(await sharedToken(firstForgotten, async () => ({ accessToken: 'asked', renewAfter: 0 })))
				.accessToken,
		).toBe('asked');
		const newest = ids[count - 1]!;
		const oldest = ids[0]!;
		expect(
			(await sharedToken(oldest, async () => ({ accessToken: 'again', renewAfter: 0 })))
				.accessToken,
		).toBe('again');
		// refusals are remembered for the newest few tokens per credential only
		for (let refused = 0; refused < 100; refused++) noteRefusedToken(newest, `refused-${refused}`);
		await sharedToken(newest, async () => ({ accessToken: 'fresh', renewAfter: 0 }));
		noteRefusedToken(newest, 'refused-99');
		expect(
			(await sharedToken(newest, async () => ({ accessToken: 'y', renewAfter: 0 }))).accessToken,
		).toBe('fresh');
		noteRefusedToken(newest, 'refused-0');
		expect(
			(await sharedToken(newest, async () => ({ accessToken: 'z', renewAfter: 0 }))).accessToken,
		).toBe('z');
	});
});
