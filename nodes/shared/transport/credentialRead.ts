import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './connection';
import { tokenIssuedToThisKey } from './token';

/**
 * The stored token only if it was issued to the key the credential holds: after a new key is
 * saved, the old key's token (which may still work for a while) must not act for the new one.
 */
function withOwnTokenOnly(data: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	if (!tokenIssuedToThisKey(data)) data.accessToken = '';
	return data;
}

/**
 * The credential as it is saved in n8n now. Each read is a database query and a decryption, so
 * one read serves a node's context for a while; but a trigger's or a poll's context lives as
 * long as the activation, so a read kept for the context's life would never see a new API key
 * saved into the credential. A read serves at most `maxAgeMs`, and a refused request reads the
 * credential again at once (request.ts).
 */
export const CREDENTIAL_READ = { maxAgeMs: 60_000 };

interface CredentialRead {
	data: Promise<ICredentialDataDecryptedObject>;
	readAtMs: number;
}

/** What the transport needs of a node's context to read its credential. */
export interface CredentialReader {
	getCredentials(type: string): Promise<ICredentialDataDecryptedObject>;
}

const credentialReads = new WeakMap<object, CredentialRead>();

/**
 * The credential for a request: the last read while it is recent, else read now. After a refusal
 * (`newerThanMs`: when the refused request's credential was read) it is read again unless a read
 * since then exists: many requests refused together make one read.
 */
export async function currentCredential(
	context: CredentialReader,
	newerThanMs?: number,
): Promise<ICredentialDataDecryptedObject> {
	const kept = credentialReads.get(context);
	const fresh =
		kept &&
		(newerThanMs === undefined
			? Date.now() - kept.readAtMs < CREDENTIAL_READ.maxAgeMs
			: kept.readAtMs > newerThanMs);
	if (kept && fresh) return await kept.data;
	const read: CredentialRead = {
		data: context.getCredentials(CREDENTIAL_TYPE).then((stored) => withOwnTokenOnly({ ...stored })),
		readAtMs: Math.max(Date.now(), (kept?.readAtMs ?? 0) + 1),
	};
	credentialReads.set(context, read);
	read.data.catch(() => {
		if (credentialReads.get(context) === read) credentialReads.delete(context);
	});
	return await read.data;
}

/** When the credential a context uses now was read (0: not yet). */
export function credentialReadAt(context: CredentialReader): number {
	return credentialReads.get(context)?.readAtMs ?? 0;
}

/** The fields that say where and as whom requests go: another value is another credential. */
const IDENTIFYING_FIELDS = [
	'environment',
	'baseUrl',
	'devBaseUrl',
	'authUrl',
	'audience',
	'companyId',
	'clientId',
	'clientSecret',
];

/** A hash of what identifies the credential, to tell whether a read brought another one. */
export function credentialFingerprint(data: ICredentialDataDecryptedObject | undefined): string {
	const values = IDENTIFYING_FIELDS.map((name) => String(data?.[name] ?? ''));
	return createHash('sha256').update(JSON.stringify(values)).digest('hex');
}
