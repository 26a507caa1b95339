import { createHash } from 'crypto';

import type { ServiceConnection } from './connection';

export interface IssuedToken {
	accessToken: string;
	/** epoch ms to renew after; 0 when the issuer gave no lifetime */
	renewAfter: number;
}

/** Per credential: the last token, the renewal under way, and refused token hashes (renew once). */
interface CredentialTokens {
	token?: IssuedToken;
	renewal?: Promise<IssuedToken>;
	refused: string[];
}

/** Shared by all executions: n8n (2.41) saves a new token late, so each would ask for its own. */
const tokensByCredential = new Map<string, CredentialTokens>();

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

/** A token's first refusal drops the held one (the issuer may end all); later ones do nothing. */
export function noteRefusedToken(identity: string, accessToken: string): void {
	if (accessToken === '') return;
	const entry = tokensFor(identity);
	const refused = sha256([accessToken]);
	if (entry.refused.includes(refused)) return;
	entry.refused.push(refused);
	if (entry.refused.length > TOKEN_CACHE_BOUNDS.refusedPerCredential) entry.refused.shift();
	entry.token = undefined;
}

/** The held token until near expiry, else the renewal under way, else a new one (shared). */
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
