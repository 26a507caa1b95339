import { type ICredentialDataDecryptedObject, type IHttpRequestHelper, sleep } from 'n8n-workflow';

import { CredentialProblemError } from './credentialProblem';
import { connectionFromCredentials, type ServiceConnection } from './connection';
import { type HttpFailure, readHttpFailure, readServiceErrorBody } from './errors';
import { backoffMs, retryAfterMs } from './retry-policy';
import { redactSecrets } from './redact';
import { credentialIdentity, noteRefusedToken, sharedToken, type IssuedToken } from './tokenCache';

/** The service asks to renew only near expiry: the last 10% of the lifetime, at most a minute. */
export function renewAfterFor(expiresInSeconds: unknown, now = Date.now()): number {
	const lifetimeMs = Number(expiresInSeconds) * 1000;
	if (!Number.isFinite(lifetimeMs) || lifetimeMs <= 0) return 0;
	return now + lifetimeMs - Math.min(60_000, lifetimeMs / 10);
}

/** In words: n8n replaces any message containing a code such as ECONNRESET with a generic one. */
function connectionProblem(code: string | undefined): string {
	switch (code) {
		case 'ECONNREFUSED':
			return 'the connection was refused';
		case 'ECONNRESET':
			return 'the connection was closed without an answer';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the host name could not be resolved';
		case 'ETIMEDOUT':
		case 'ECONNABORTED':
			return 'no answer in time';
		default:
			return 'no answer';
	}
}

function tokenFailureMessage(error: unknown, tokenUrl: string, audience: string): [string, string] {
	const failure = readHttpFailure(error);
	if (failure.status === undefined) {
		return [
			`Could not reach the token issuer at ${tokenUrl} (${connectionProblem(failure.networkCode)}).`,
			"Check the 'Token Issuer Address' in the credential.",
		];
	}
	const body = readServiceErrorBody(failure.body, failure.requestIdHeader);
	const said = body.message ? ` The issuer said: "${body.message}".` : '';
	const requestId = body.requestId ? ` (request ID ${body.requestId})` : '';
	const code = body.code ?? '';
	if (code === 'key_revoked' || /revoked/i.test(body.message ?? '')) {
		return [
			`This API key has been revoked in the portal, so no new access token can be issued.${said}${requestId}`,
			"Create a new key in Portal Setup > Other > Developer / API Keys and enter its 'Client ID' and 'Client Secret'.",
		];
	}
	if (code === 'invalid_audience' || /audience/i.test(body.message ?? '')) {
		return [
			`The token issuer refused the audience "${audience}".${said}${requestId}`,
			"The audience must be the API base address of the selected environment: leave 'Audience' empty, and check the 'Environment' and its API base address.",
		];
	}
	if (failure.status === 401 || failure.status === 403 || code === 'invalid_client') {
		return [
			`The token issuer rejected the 'Client ID' or 'Client Secret' (HTTP ${failure.status}).${said}${requestId}`,
			'Copy both again from Portal Setup > Other > Developer / API Keys; the secret is shown only once, so if it is lost, revoke the key and create a new one.',
		];
	}
	if (failure.status === 429) {
		return [
			`The token issuer kept rate limiting this key (HTTP 429), also after waiting.${said}${requestId}`,
			'Try again in a moment.',
		];
	}
	if (failure.status >= 500) {
		return [
			`The token issuer at ${tokenUrl} kept answering HTTP ${failure.status}, also after retries.${said}${requestId}`,
			'Try again in a moment.',
		];
	}
	return [
		`The token issuer at ${tokenUrl} answered HTTP ${failure.status}.${said}${requestId}`,
		"Check the 'Token Issuer Address' in the credential and try again.",
	];
}

const TOKEN_RETRY = { attempts: 4, baseDelayMs: 300, maxWaitMs: 10_000 } as const;

/** 429, 5xx and lost connections pass; a refused connection or unknown host is a wrong address. */
function isTemporaryFailure(failure: HttpFailure): boolean {
	if (failure.status !== undefined) return failure.status === 429 || failure.status >= 500;
	return failure.networkCode !== 'ECONNREFUSED' && failure.networkCode !== 'ENOTFOUND';
}

/** The token endpoint's answer, asked again while it fails for a while (TOKEN_RETRY). */
async function tokenResponse(
	helper: IHttpRequestHelper,
	connection: ServiceConnection,
	clientSecret: string,
): Promise<unknown> {
	for (let attempt = 1; ; attempt++) {
		let thrown: unknown;
		try {
			return await helper.helpers.httpRequest({
				method: 'POST',
				url: connection.tokenUrl,
				headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
				body: {
					grant_type: 'client_credentials',
					client_id: connection.clientId,
					client_secret: clientSecret,
					audience: connection.audience,
				},
				json: true,
			});
		} catch (error) {
			thrown = error;
		}
		// A token exchange changes nothing on the service: safe to repeat when it failed for a while.
		const failure = readHttpFailure(thrown);
		const temporary = isTemporaryFailure(failure);
		if (!temporary || attempt >= TOKEN_RETRY.attempts) {
			const [message, fix] = tokenFailureMessage(thrown, connection.tokenUrl, connection.audience);
			throw new CredentialProblemError(redactSecrets(message, [clientSecret]), fix, temporary);
		}
		await sleep(
			Math.min(
				retryAfterMs(failure.retryAfter) ?? backoffMs(TOKEN_RETRY.baseDelayMs, attempt - 1),
				TOKEN_RETRY.maxWaitMs,
			),
		);
	}
}

async function exchangeClientCredentials(
	helper: IHttpRequestHelper,
	connection: ServiceConnection,
	clientSecret: string,
): Promise<IssuedToken> {
	const response = await tokenResponse(helper, connection, clientSecret);
	const accessToken = (response as { access_token?: unknown } | undefined)?.access_token;
	if (typeof accessToken !== 'string' || accessToken.length === 0) {
		throw new CredentialProblemError(
			`The token issuer at ${connection.tokenUrl} answered without an access token.`,
			"Check the 'Token Issuer Address' in the credential.",
		);
	}
	return {
		accessToken,
		renewAfter: renewAfterFor((response as { expires_in?: unknown }).expires_in),
	};
}

function clientSecretOf(credentials: ICredentialDataDecryptedObject): string {
	const clientSecret = typeof credentials.clientSecret === 'string' ? credentials.clientSecret : '';
	if (!clientSecret) {
		throw new CredentialProblemError(
			"'Client Secret' is empty.",
			'Copy it from the portal when you create the key.',
		);
	}
	return clientSecret;
}

/** A new token. Errors carry no HTTP response: on a 401 n8n would re-run preAuthentication. */
export async function requestAccessToken(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<IssuedToken> {
	const connection = connectionFromCredentials(credentials);
	return await exchangeClientCredentials(helper, connection, clientSecretOf(credentials));
}

/** The token for preAuthentication: one request per process while valid (tokenCache.ts). */
export async function accessTokenFor(
	helper: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): Promise<IssuedToken & { issuedTo: string }> {
	const connection = connectionFromCredentials(credentials);
	const clientSecret = clientSecretOf(credentials);
	const identity = credentialIdentity(connection, clientSecret);
	if (typeof credentials.accessToken === 'string')
		noteRefusedToken(identity, credentials.accessToken);
	const token = await sharedToken(
		identity,
		async () => await exchangeClientCredentials(helper, connection, clientSecret),
	);
	return { ...token, issuedTo: identity };
}

/** Whether the stored token was issued to the key the credential holds now. */
export function tokenIssuedToThisKey(credentials: ICredentialDataDecryptedObject): boolean {
	if (typeof credentials.accessToken !== 'string' || credentials.accessToken === '') return true;
	try {
		const connection = connectionFromCredentials(credentials);
		return (
			credentials.tokenIssuedTo === credentialIdentity(connection, clientSecretOf(credentials))
		);
	} catch {
		// a credential that cannot be read sends nothing: the request fails on it, not on the token
		return true;
	}
}

/** A request was refused with this token (a 403 that may mean expired). */
export function accessTokenRefused(credentials: ICredentialDataDecryptedObject): void {
	const accessToken = credentials.accessToken;
	if (typeof accessToken !== 'string' || accessToken === '') return;
	try {
		const connection = connectionFromCredentials(credentials);
		noteRefusedToken(credentialIdentity(connection, clientSecretOf(credentials)), accessToken);
	} catch {
		// A credential that cannot be read never got a token in this process.
	}
}
