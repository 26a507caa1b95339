import { createHash } from 'crypto';

import type { ServiceConnection } from './connection';
import { registerProcessCache } from '../state/processMemory';

export interface IssuedToken {
	accessToken: string;
	/** epoch ms after which the token should be renewed before use; 0 when the issuer gave no lifetime */
	renewAfter: number;
}

/**
 * What this process holds for one credential: the token it was issued last, the renewal under
 * way, and which tokens were refused already (hashes), so that each refusal renews once.
 */
interface CredentialTokens {
	token?: IssuedToken;
	renewal?: Promise<IssuedToken>;
	refused: string[];
}

/**
 * Tokens issued in this process, per credential identity. n8n stores the token with the
 * credential, but an execution that read the credential before another execution's new
 * token was saved (n8n 2.41 reads the stored credential twice before it writes the token)
 * would ask for its own; here every execution of the process gets the one token while it is
 * valid, also when they start or renew together. Bounded: the credentials used last, a few
 * refused tokens each.
 */
const tokensByCredential = new Map<string, CredentialTokens>();
registerProcessCache('accessTokens', {
	get size() {
		return tokensByCredential.size;
	},
});

export const TOKEN_CACHE_BOUNDS = { credentials: 100, refusedPerCredential: 8 } as const;

function sha256(parts: string[]): string {
	return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Who the token is for: token address, client, audience and the secret, as a hash only. */
export function credentialIdentity(connection: ServiceConnection, clientSecret: string): string {
	return sha256([connection.tokenUrl, connection.clientId, connection.audience, clientSecret]);
}

/** The credential's entry, now the most recently used; the least recently used beyond the bound go. */
function tokensFor(identity: string): CredentialTokens {
	const entry = tokensByCredential.get(identity) ?? { refused: [] };
	tokensByCredential.delete(identity);
	tokensByCredential.set(identity, entry);
	for (const oldest of tokensByCredential.keys()) {
		if (tokensByCredential.size <= TOKEN_CACHE_BOUNDS.credentials) break;
		tokensByCredential.delete(oldest);
	}
	return entry;
}

/**
 * A request was refused with `accessToken` (401, or a 403 that may mean "expired"). The first
 * refusal of a token drops the token this process holds: it is that token, or one issued
 * elsewhere was refused and this one may be gone as well (the issuer ended them all). Later
 * refusals of the same token were sent before its renewal and change nothing.
 */
export function noteRefusedToken(identity: string, accessToken: string): void {
	if (accessToken === '') return;
	const entry = tokensFor(identity);
	const refused = sha256([accessToken]);
	if (entry.refused.includes(refused)) return;
	entry.refused.push(refused);
	if (entry.refused.length > TOKEN_CACHE_BOUNDS.refusedPerCredential) entry.refused.shift();
	entry.token = undefined;
}

/**
 * The token to use now: the one this process holds while it is not near expiry, else the
 * renewal under way, else a new one from `issue`, shared by everyone who asks meanwhile.
 */
export async function sharedToken(
	identity: string,
	issue: () => Promise<IssuedToken>,
): Promise<IssuedToken> {
	const entry = tokensFor(identity);
	const held = entry.token;
	if (held && (held.renewAfter === 0 || Date.now() < held.renewAfter)) return held;
	entry.token = undefined;
	entry.renewal ??= issue()
		.then((issued) => {
			entry.token = issued;
			return issued;
		})
		.finally(() => {
			entry.renewal = undefined;
		});
	return await entry.renewal;
}

/**
 * Forgets every token this process holds: what a new n8n process starts with. Only the test
 * harness calls it (each harness is a new n8n process in the same Node.js process).
 */
export function forgetIssuedTokens(): void {
	tokensByCredential.clear();
}
