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
import { isRecord } from './record';
import { serviceError, readHttpFailure, type HttpFailure } from './errors';
import { decideRetry, isServerError, NO_RETRIES_YET, RETRY_POLICY } from './retry-policy';
import { accessTokenRefused } from './token';
import { credentialFingerprint, credentialReadAt, currentCredential } from './credentialRead';

/** Unwraps `{ data, context, status }`; a bare body is fine too (the envelope is not promised). */
export function unwrapEnvelope<T = unknown>(body: unknown): T {
	if (isRecord(body) && 'data' in body) {
		const record = body as Record<string, unknown>;
		if ('status' in record || 'context' in record || Object.keys(record).length === 1) {
			return record.data as T;
		}
	}
	return body as T;
}

export type PartnerLeadsFunctions =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IWebhookFunctions;

export interface ApiRequest {
	method: IHttpRequestMethods;
	api?: 'rest' | 'webhooks';
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** what the request is about, in the user's words ('lead 65f…'); used in errors */
	what: string;
	/** May be resent after a 5xx or lost connection; not POST by default (no duplicate creates). */
	repeatable?: boolean;
	itemIndex?: number;
	/** on every 429, so a caller running requests in parallel can slow down */
	onRateLimited?: (retryAfterMs: number) => void;
	onServerError?: () => void;
	/** total wait allowed on 429s; default RETRY_POLICY.maxRateLimitWaitMs */
	rateLimitBudgetMs?: number;
	/** the service's clock from an answer's Date header (whole seconds), when it sends one */
	onServiceTime?: (serviceMs: number) => void;
}

/** What a caller passes to all requests of one item. */
export type ItemRequestOptions = Pick<
	ApiRequest,
	'itemIndex' | 'onRateLimited' | 'onServerError' | 'repeatable' | 'rateLimitBudgetMs'
>;

/** Where and as whom this node run talks to the service, from the credential as saved now. */
export async function connectionFor(context: PartnerLeadsFunctions): Promise<ServiceConnection> {
	return connectionFromCredentials(await currentCredential(context));
}

/** The credential of one attempt, as handed to n8n, and the token it held then. */
interface AttemptCredential {
	options?: IAdditionalCredentialOptions;
	/** n8n writes a renewed token into it */
	data?: ICredentialDataDecryptedObject;
	tokenBefore?: unknown;
	/** when the credential it copies was read (credentialRead.ts) */
	readAtMs: number;
}

/** A copy for one attempt. A token near expiry or refused is emptied, so n8n renews it first. */
async function attemptCredential(
	context: PartnerLeadsFunctions,
	renewToken = false,
): Promise<AttemptCredential> {
	const details = context.getNode().credentials?.[CREDENTIAL_TYPE];
	if (!details?.id) return { readAtMs: 0 };
	const data = { ...(await currentCredential(context)) };
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
		readAtMs: credentialReadAt(context),
	};
}

/** A token n8n renewed during an attempt serves the run's later requests. */
async function keepRenewedToken(
	context: PartnerLeadsFunctions,
	attempt: AttemptCredential,
): Promise<void> {
	const token = attempt.data?.accessToken;
	if (typeof token !== 'string' || token === '' || token === attempt.tokenBefore) return;
	const shared = await currentCredential(context);
	if (credentialFingerprint(shared) !== credentialFingerprint(attempt.data)) return;
	shared.accessToken = token;
	shared.renewalDueAt = attempt.data?.renewalDueAt ?? 0;
	shared.tokenIssuedTo = attempt.data?.tokenIssuedTo ?? '';
}

/** Runs where a fresh token also got a 403: later 403s are not worth a new token. */
const refusedDespiteFreshToken = new WeakSet<object>();

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

/** The error for a failure that is not retried, with the secrets the request sent kept out. */
async function failedRequestError(
	context: PartnerLeadsFunctions,
	failure: HttpFailure,
	connection: ServiceConnection,
	request: ApiRequest,
	repeatable: boolean,
	attempt: AttemptCredential,
) {
	const secrets = [
		...secretsOf(await currentCredential(context).catch(() => ({}))),
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

/** The request's options for the credential as read now (its address may have changed). */
function requestOptions(request: ApiRequest, connection: ServiceConnection): IHttpRequestOptions {
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

/** One attempt; the Date header goes to `onServiceTime` when the caller asks for it. */
async function sendOnce(
	context: PartnerLeadsFunctions,
	request: ApiRequest,
	connection: ServiceConnection,
	attempt: AttemptCredential,
): Promise<unknown> {
	const options = requestOptions(request, connection);
	const send = context.helpers.httpRequestWithAuthentication;
	if (!request.onServiceTime)
		return await send.call(context, CREDENTIAL_TYPE, options, attempt.options);
	const answer = (await send.call(
		context,
		CREDENTIAL_TYPE,
		{ ...options, returnFullResponse: true },
		attempt.options,
	)) as { body?: unknown; headers?: Record<string, unknown> };
	const serviceMs = Date.parse(String(answer.headers?.date ?? ''));
	if (Number.isFinite(serviceMs)) request.onServiceTime(serviceMs);
	return answer.body;
}

/** Sends one request with retries (see decideRetry); returns the body as the service sent it. */
export async function apiRequestRaw(
	this: PartnerLeadsFunctions,
	request: ApiRequest,
): Promise<unknown> {
	const repeatable = request.repeatable ?? request.method !== 'POST';
	const rateLimitBudgetMs = request.rateLimitBudgetMs ?? RETRY_POLICY.maxRateLimitWaitMs;
	let state = NO_RETRIES_YET;
	let refusedReadAtMs: number | undefined;
	for (;;) {
		let failure: HttpFailure;
		if (refusedReadAtMs !== undefined)
			await currentCredential(this, refusedReadAtMs).catch(() => undefined);
		const connection = await connectionForRequest(this, request);
		const attempt = await attemptCredential(this, state.renewToken);
		try {
			return await sendOnce(this, request, connection, attempt);
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
		// Refused: a new key may have been saved into the credential since it was read.
		const refused = decision.next === 'renewToken' || decision.next === 'readCredentialAgain';
		refusedReadAtMs = refused ? attempt.readAtMs : undefined;
		const giveUp =
			decision.next === 'giveUp' ||
			(decision.next === 'readCredentialAgain' && !(await credentialChanged(this, attempt)));
		if (giveUp) {
			throw await failedRequestError(this, failure, connection, request, repeatable, attempt);
		}
		state = decision.state;
		// Retry-After: 0 means now: a zero-length timer still costs a timer turn (~1 ms).
		if (decision.waitMs > 0) await sleep(decision.waitMs);
	}
}

/** Whether the credential saved now is another one than the attempt went with. */
async function credentialChanged(
	context: PartnerLeadsFunctions,
	attempt: AttemptCredential,
): Promise<boolean> {
	const now = await currentCredential(context, attempt.readAtMs).catch(() => undefined);
	return now !== undefined && credentialFingerprint(now) !== credentialFingerprint(attempt.data);
}

/** Sends one request with retries; returns the payload without the service's envelope. */
export async function apiRequest<T = unknown>(
	this: PartnerLeadsFunctions,
	request: ApiRequest,
): Promise<T> {
	return unwrapEnvelope<T>(await apiRequestRaw.call(this, request));
}
