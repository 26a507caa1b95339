import type {
	ICredentialDataDecryptedObject,
	IAdditionalCredentialOptions,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IPollFunctions,
	ITriggerFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ServiceConnection } from './connection';
import { isCredentialProblem } from './credentialProblem';
import { connectionFromCredentials, CREDENTIAL_TYPE, secretsOf } from './connection';
import { unwrapEnvelope } from './envelope';
import { serviceError, readHttpFailure } from './errors';
import type { HttpFailure } from './errors';
import { decideRetry, isServerError, NO_RETRIES_YET, RETRY_POLICY } from './retry-policy';
import { accessTokenRefused } from './token';
import { registerProcessCache } from '../state/processMemory';

export type PartnerLeadsFunctions =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IWebhookFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	/** 'rest' → {base}/1.0/api/company/{id}{path}; 'webhooks' → {base}/1.0/webhooks/companies/{id}/subscriptions{path} */
	api?: 'rest' | 'webhooks';
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** what the request is about, in the user's words ('lead 65f…'); used in errors */
	what: string;
	/**
	 * Whether the request may be sent again after a 5xx or a lost connection. Defaults to
	 * every method but POST: a create that may have been applied is never sent twice.
	 */
	repeatable?: boolean;
	itemIndex?: number;
	/** called on every 429 with the wait asked for, so a caller running requests in parallel can slow down */
	onRateLimited?: (retryAfterMs: number) => void;
	/** called on every 5xx, so a caller running requests in parallel can send less */
	onServerError?: () => void;
	/** how long this request may wait on 429s in all; default RETRY_POLICY.maxRateLimitWaitMs */
	rateLimitBudgetMs?: number;
}

/** What a caller passes to all requests of one item: its index, and pacing for the item loop. */
export type ItemRequestOptions = Pick<
	ApiRequest,
	'itemIndex' | 'onRateLimited' | 'onServerError' | 'repeatable' | 'rateLimitBudgetMs'
>;

/**
 * The credential's data for one node run (or one delivery), read once: in n8n every read is
 * a database query and a decryption. Each attempt hands n8n a copy (attemptCredential), and a
 * token n8n renewed for an attempt is written back here (keepRenewedToken), so later requests
 * of the run use it. A copy: the caller's data is not changed.
 */
const credentialData = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();
registerProcessCache('decryptedCredentials', {
	get size() {
		return undefined;
	},
});

function credentialDataFor(
	context: PartnerLeadsFunctions,
): Promise<ICredentialDataDecryptedObject> {
	let data = credentialData.get(context);
	if (!data) {
		data = context.getCredentials(CREDENTIAL_TYPE).then((stored) => ({ ...stored }));
		credentialData.set(context, data);
		data.catch(() => credentialData.delete(context));
	}
	return data;
}

/** Where and as whom this node run talks to the service, from the credential read for the run. */
export async function connectionFor(context: PartnerLeadsFunctions): Promise<ServiceConnection> {
	return connectionFromCredentials(await credentialDataFor(context));
}

/** The credential of one attempt, as handed to n8n, and the token it held then. */
interface AttemptCredential {
	options?: IAdditionalCredentialOptions;
	/** n8n writes a renewed token into it: after the attempt, the token the attempt was sent with */
	data?: ICredentialDataDecryptedObject;
	tokenBefore?: unknown;
}

/**
 * The credential handed to n8n for one attempt (n8n would read it itself otherwise): a copy
 * of the run's, so the token the attempt went with stays known while other requests of the
 * run renew theirs. When the token is near expiry, or was refused with a 403, it is emptied
 * first, so n8n's preAuthentication renews it (and stores the new one) before the request
 * instead of after a 401.
 */
async function attemptCredential(
	context: PartnerLeadsFunctions,
	renewToken = false,
): Promise<AttemptCredential> {
	const details = context.getNode().credentials?.[CREDENTIAL_TYPE];
	if (!details?.id) return {};
	const data = { ...(await credentialDataFor(context)) };
	const renewAfter = Number(data.renewalDueAt);
	const nearExpiry =
		typeof data.accessToken === 'string' &&
		data.accessToken !== '' &&
		renewAfter > 0 &&
		Date.now() >= renewAfter;
	if (nearExpiry || renewToken) data.accessToken = '';
	return {
		options: {
			credentialsDecrypted: { id: details.id, name: details.name, type: CREDENTIAL_TYPE, data },
		},
		data,
		tokenBefore: data.accessToken,
	};
}

/** A token n8n renewed during an attempt serves the run's later requests. */
async function keepRenewedToken(
	context: PartnerLeadsFunctions,
	attempt: AttemptCredential,
): Promise<void> {
	const token = attempt.data?.accessToken;
	if (typeof token !== 'string' || token === '' || token === attempt.tokenBefore) return;
	const shared = await credentialDataFor(context);
	shared.accessToken = token;
	shared.renewalDueAt = attempt.data?.renewalDueAt ?? 0;
}

/**
 * Node runs in which a 403 came back also with a fresh token: the refusal is not about the
 * token, so later 403s of the run are not worth another token request.
 */
const refusedDespiteFreshToken = new WeakSet<object>();
registerProcessCache('refusedDespiteFreshToken', {
	get size() {
		return undefined;
	},
});

export function serviceUrl(
	connection: ServiceConnection,
	api: 'rest' | 'webhooks',
	path: string,
): string {
	const company = encodeURIComponent(connection.companyId);
	return api === 'rest'
		? `${connection.apiBaseUrl}/1.0/api/company/${company}${path}`
		: `${connection.apiBaseUrl}/1.0/webhooks/companies/${company}/subscriptions${path}`;
}

/** The connection for the request; a credential that cannot be used fails as a service error would. */
async function connectionForRequest(
	context: PartnerLeadsFunctions,
	request: ApiRequest,
): Promise<ServiceConnection> {
	try {
		return await connectionFor(context);
	} catch (error) {
		const failure: HttpFailure = isCredentialProblem(error)
			? { credentialProblem: error.message, credentialProblemFix: error.fix }
			: readHttpFailure(error);
		throw serviceError(
			context.getNode(),
			failure,
			{ method: request.method, what: request.what, environment: '' },
			[],
			request.itemIndex,
		);
	}
}

function httpOptionsFor(connection: ServiceConnection, request: ApiRequest): IHttpRequestOptions {
	return {
		method: request.method,
		url: serviceUrl(connection, request.api ?? 'rest', request.path),
		qs: request.qs,
		body: request.body,
		json: true,
		headers: { Accept: 'application/json' },
		timeout: RETRY_POLICY.requestTimeoutMs,
	};
}

/** The error for a failure that is not retried, with the secrets the request sent kept out. */
async function failedRequestError(
	context: PartnerLeadsFunctions,
	failure: HttpFailure,
	connection: ServiceConnection,
	request: ApiRequest,
	repeatable: boolean,
	attempt: AttemptCredential,
) {
	// The run's credential, with any token renewed during the run, and what the attempt sent.
	const secrets = [
		...secretsOf(await credentialDataFor(context).catch(() => ({}))),
		...secretsOf(attempt.data ?? {}),
	];
	return serviceError(
		context.getNode(),
		failure,
		{
			method: request.method,
			what: request.what,
			environment: connection.environment === 'production' ? 'Production' : 'Non-Production',
			companyId: connection.companyId,
			notRepeated: !repeatable && (failure.status === undefined || isServerError(failure.status)),
		},
		secrets,
		request.itemIndex,
	);
}

/** Sends one request with retries (see decideRetry); returns the body as the service sent it. */
export async function apiRequestRaw(
	this: PartnerLeadsFunctions,
	request: ApiRequest,
): Promise<unknown> {
	const connection = await connectionForRequest(this, request);
	const options = httpOptionsFor(connection, request);
	const repeatable = request.repeatable ?? request.method !== 'POST';
	const rateLimitBudgetMs = request.rateLimitBudgetMs ?? RETRY_POLICY.maxRateLimitWaitMs;
	let state = NO_RETRIES_YET;
	for (;;) {
		let failure: HttpFailure;
		const attempt = await attemptCredential(this, state.renewToken);
		try {
			return await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{ ...options },
				attempt.options,
			);
		} catch (error) {
			failure = readHttpFailure(error);
		} finally {
			await keepRenewedToken(this, attempt);
		}
		const freshTokenRefusedInRun = refusedDespiteFreshToken.has(this);
		const decision = decideRetry(failure, state, {
			repeatable,
			rateLimitBudgetMs,
			freshTokenRefusedInRun,
		});
		if (decision.freshTokenRefused) refusedDespiteFreshToken.add(this);
		// The process drops the token the attempt went with (once, however many requests it failed).
		if (decision.next === 'renewToken' && attempt.data) accessTokenRefused(attempt.data);
		if (decision.serverError) request.onServerError?.();
		if (decision.rateLimitedMs !== undefined) request.onRateLimited?.(decision.rateLimitedMs);
		if (decision.next === 'giveUp') {
			throw await failedRequestError(this, failure, connection, request, repeatable, attempt);
		}
		state = decision.state;
		// Retry-After: 0 means now: a zero-length timer still costs a timer turn (~1 ms).
		if (decision.waitMs > 0) await sleep(decision.waitMs);
	}
}

/** Sends one request with retries; returns the payload without the service's envelope. */
export async function apiRequest<T = unknown>(
	this: PartnerLeadsFunctions,
	request: ApiRequest,
): Promise<T> {
	return unwrapEnvelope<T>(await apiRequestRaw.call(this, request));
}
