import { type INode, type JsonObject, NodeApiError } from 'n8n-workflow';

import { credentialProblemByMessage, isCredentialProblem } from './credentialProblem';
import { BASE_ADDRESS_FIELDS } from './connection';
import { redactSecrets } from './redact';
import { asRecord } from './record';

/** Read from what n8n's helpers threw; nothing else is kept (it holds the Authorization header). */
export interface HttpFailure {
	status?: number;
	body?: unknown;
	retryAfter?: string;
	requestIdHeader?: string;
	/** when there was no response, e.g. ECONNREFUSED */
	networkCode?: string;
	networkMessage?: string;
	/** the credential's values or its token exchange failed */
	credentialProblem?: string;
	/** the token issuer answered 429/5xx or not at all */
	credentialProblemTemporary?: boolean;
	credentialProblemFix?: string;
}

/** A response header as axios or fetch gives it (a plain object or one with `get`), any case. */
function responseHeaderValue(headers: unknown, name: string): string | undefined {
	const record = asRecord(headers);
	if (!record) return undefined;
	const getter = record.get;
	if (typeof getter === 'function') {
		const value = (getter as (key: string) => unknown).call(headers, name);
		if (value !== undefined && value !== null) return String(value);
	}
	const direct = record[name] ?? record[name.toLowerCase()];
	return direct === undefined || direct === null ? undefined : String(direct);
}

function parseBody(data: unknown): unknown {
	if (typeof data === 'string' && data.trim().startsWith('{')) {
		try {
			return JSON.parse(data) as unknown;
		} catch {
			return data;
		}
	}
	if (data instanceof Buffer) return parseBody(data.toString('utf8'));
	return data;
}

export function readHttpFailure(error: unknown): HttpFailure {
	const outer = asRecord(error);
	// NodeApiError keeps the original error as `cause` on n8n 2.x; a raw helper error is used as is.
	const candidates = [outer, asRecord(outer?.cause)];
	// n8n 1.x drops the cause: our credential problem is then known by its message.
	const problem = candidates.find((candidate) => isCredentialProblem(candidate)) ?? outer;
	const known = isCredentialProblem(problem) ? problem : credentialProblemByMessage(outer?.message);
	if (known) {
		return {
			credentialProblem: String(problem?.message),
			credentialProblemTemporary: known.temporary === true,
			credentialProblemFix: String(known.fix ?? ''),
		};
	}
	for (const candidate of candidates) {
		const response = asRecord(candidate?.response);
		const status = Number(response?.status ?? response?.statusCode ?? candidate?.statusCode);
		if (response && Number.isFinite(status) && status > 0) {
			return {
				status,
				// axios: response.data; n8n's legacy request helper: the error's `error` property
				body: parseBody(response.data ?? response.body ?? candidate?.error),
				retryAfter: responseHeaderValue(response.headers, 'retry-after'),
				requestIdHeader: responseHeaderValue(response.headers, 'x-request-id'),
			};
		}
	}
	for (const candidate of candidates) {
		const code = candidate?.code;
		if (typeof code === 'string' && code.length > 0 && !/^\d+$/.test(code)) {
			return { networkCode: code, networkMessage: String(candidate?.message ?? code) };
		}
	}
	// n8n 1.x: only the NodeApiError is left, with the status (or network code) and body.
	if (typeof outer?.httpCode === 'string' && /^E[A-Z_]+$/.test(outer.httpCode)) {
		return { networkCode: outer.httpCode, networkMessage: String(outer.message ?? outer.httpCode) };
	}
	const httpCode = Number(outer?.httpCode);
	if (Number.isFinite(httpCode) && httpCode > 0) {
		return { status: httpCode, body: parseBody(asRecord(outer?.context)?.data) };
	}
	return { networkMessage: String(outer?.message ?? error) };
}

/** The service's error body: `{ status, error: { code, message, details }, context: { requestId } }`, or anything else. */
export interface ServiceErrorBody {
	code?: string;
	message?: string;
	details: Array<{ field?: string; message?: string }>;
	requestId?: string;
}

/** The readable text of an HTML error page (a proxy's or the service's), or the text as it is. */
function plainText(body: string): string {
	if (!/<\/?[a-z][^>]*>/i.test(body)) return body.trim();
	return body
		.replace(/<(head|script|style)[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&')
		.replace(/\s+/g, ' ')
		.trim();
}

/** A text answer starting with a snake_case code ("invalid_token: ...", "403 invalid_token"). */
const LEADING_CODE = /^(?:\d{3}\s+)?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?::\s*|\s+)([\s\S]*)$/;

function readTextErrorBody(body: string, requestIdHeader?: string): ServiceErrorBody {
	const text = plainText(body).slice(0, 500);
	const coded = LEADING_CODE.exec(text);
	return {
		code: coded?.[1],
		message: coded?.[2] || text || undefined,
		details: [],
		requestId: requestIdHeader,
	};
}

export function readServiceErrorBody(body: unknown, requestIdHeader?: string): ServiceErrorBody {
	if (typeof body === 'string') return readTextErrorBody(body, requestIdHeader);
	const record = asRecord(body);
	const nested = asRecord(record?.error);
	const source = nested ?? record;
	const detailsRaw = source?.details ?? record?.details ?? record?.errors;
	const details = Array.isArray(detailsRaw)
		? detailsRaw.map((entry) => {
				const item = asRecord(entry);
				return {
					field: typeof item?.field === 'string' ? item.field : undefined,
					message:
						typeof item?.message === 'string'
							? item.message
							: typeof entry === 'string'
								? entry
								: undefined,
				};
			})
		: [];
	const message =
		typeof source?.message === 'string'
			? source.message
			: typeof record?.error === 'string'
				? record.error
				: undefined;
	const requestId = asRecord(record?.context)?.requestId;
	return {
		code: typeof source?.code === 'string' ? source.code : undefined,
		message,
		details,
		requestId: typeof requestId === 'string' ? requestId : requestIdHeader,
	};
}

/** What the request was about, so the error can say it in the user's terms. */
export interface RequestSubject {
	method: string;
	/** e.g. 'lead 65f0…', 'lead schema' */
	what: string;
	environment: string;
	/** the create was not resent after an unclear failure */
	notRepeated?: boolean;
	companyId?: string;
	/** so a fix names that node's own parameters */
	nodeType?: string;
}

const AUTH_CAUSES =
	"Likely causes: the access token expired and could not be renewed; the 'Audience' does not match the environment (leave it empty to use the API base address of the environment); the key was revoked in the portal (create a new key in Portal Setup > Other > Developer / API Keys); or the 'Client Secret' was sent instead of an access token (use this credential, which exchanges the secret for a token).";

function detailsText(details: ServiceErrorBody['details']): string {
	return details
		.map((detail) =>
			detail.field ? `${detail.field}: ${detail.message ?? 'invalid'}` : (detail.message ?? ''),
		)
		.filter(Boolean)
		.join('; ');
}

const CREDIT_FIX =
	" The agent must belong to the partner organization sent with it: give the organization's ID in 'Partner Organization' and one of its agents in 'Agent' (the 'Agent' list, and Lead > Get Many, show which agent IDs belong to which organization).";

/** How to fix a refused agent or partner organization, whichever shape the refusal has. */
function creditFix(body: ServiceErrorBody): string {
	const named = body.details.some(
		(detail) => detail.field === 'agentId' || detail.field === 'partnerOrganizationId',
	);
	return named || /\bagent|partner ?organi[sz]ation/i.test(body.message ?? '') ? CREDIT_FIX : '';
}

/** The reason of an auth refusal: the service's code, or failing one, what its message says. */
function authReason(body: ServiceErrorBody, status: number): string | undefined {
	if (body.code) return body.code;
	const said = body.message ?? '';
	if (status === 404) return /compan(y|ies)/i.test(said) ? 'company_not_found' : undefined;
	if (/client.?secret/i.test(said)) return 'client_secret_as_bearer';
	if (/revoked/i.test(said)) return 'key_revoked';
	if (/audience/i.test(said)) return 'wrong_audience';
	return undefined;
}

function authMessage(
	body: ServiceErrorBody,
	status: number,
	subject: RequestSubject,
): [string, string] {
	switch (authReason(body, status)) {
		case 'wrong_audience':
			return [
				`The access token is for another environment than ${subject.environment} (HTTP ${status})`,
				"The token audience must be the API base address of the selected environment. Leave 'Audience' empty in the credential, or set it to that address.",
			];
		case 'client_secret_as_bearer':
			return [
				`The Client Secret was sent as the bearer token (HTTP ${status})`,
				'The service wants an access token, not the secret. Use the Partner Referral Service API credential, which exchanges the secret for a token.',
			];
		case 'key_revoked':
			return [
				`This API key has been revoked (HTTP ${status})`,
				"Create a new key in Portal Setup > Other > Developer / API Keys and enter its 'Client ID' and 'Client Secret' in the credential.",
			];
		case 'company_not_found':
			return [
				subject.companyId ? `Unknown Company ID "${subject.companyId}"` : 'Unknown Company ID',
				"The service has no portal with the Company ID in the credential. Copy the 24-character 'Company ID' that the provider gave you with the API addresses.",
			];
		default:
			return [
				`The service refused the credentials (HTTP ${status}) for ${subject.what}`,
				body.message ? `${AUTH_CAUSES} The service said: "${body.message}".` : AUTH_CAUSES,
			];
	}
}

/** How to ask less of the service, naming only parameters the node that hit the limit has. */
function rateLimitFix(nodeType: string | undefined): string {
	if (nodeType?.endsWith('.partnerLeadsPollingTrigger'))
		return "The next poll starts again from the same point. To poll less often, lower 'List Requests per Minute' (Options).";
	if (nodeType?.endsWith('.partnerLeadsTrigger'))
		return "The trigger tries again at its next check. To check less often, raise 'Missed Events Check Interval' (Options).";
	if (nodeType?.endsWith('.partnerLeads') || nodeType?.endsWith('.partnerLeadsTool'))
		return "If 'Parallel Requests' (Options) is set to a number, set it to Automatic, which slows down as the service asks; otherwise spread the items over time (e.g. Loop Over Items with a Wait node), or run the workflow later.";
	return 'Try again in a few minutes.';
}

/** Said of a request that failed without a clear answer and was not sent again. */
const NOT_REPEATED =
	' The request was not sent again, because it may already have been applied: check with Lead > Get Many before running it again, to avoid a duplicate.';

function credentialProblemMessage(
	failure: HttpFailure & { credentialProblem: string },
): [string, string] {
	const fix = failure.credentialProblemFix ? `${failure.credentialProblemFix} ` : '';
	return [
		failure.credentialProblem,
		failure.credentialProblemTemporary
			? 'The token issuer did not answer properly several times in a row; the credential itself may be fine. Run the workflow again in a moment.'
			: `${fix}Open the Partner Referral Service API credential, change it, and use its Test button to check.`,
	];
}

/** The credential field with the address a request went to: the environment's, or either. */
function baseAddressField(environment: string): string {
	const field = `${environment} API Base Address`;
	return Object.values(BASE_ADDRESS_FIELDS).includes(field)
		? `'${field}'`
		: `'${BASE_ADDRESS_FIELDS.production}' (or '${BASE_ADDRESS_FIELDS.nonProduction}')`;
}

function noAnswerMessage(failure: HttpFailure, subject: RequestSubject): [string, string] {
	const reason = failure.networkCode ?? failure.networkMessage ?? 'no answer';
	const repeat = subject.notRepeated ? NOT_REPEATED : '';
	// The network code stays out of the message: n8n replaces messages that contain one.
	return [
		'Could not reach the Partner Referral Service',
		`No connection was made (${reason}). Check the ${baseAddressField(subject.environment)} in the credential and your network.${repeat}`,
	];
}

export function describeFailure(failure: HttpFailure, subject: RequestSubject): [string, string] {
	if (failure.credentialProblem) {
		return credentialProblemMessage({ ...failure, credentialProblem: failure.credentialProblem });
	}
	const status = failure.status;
	if (status === undefined) return noAnswerMessage(failure, subject);
	const body = readServiceErrorBody(failure.body, failure.requestIdHeader);
	const serviceSaid = body.message ? `The service said: "${body.message}".` : '';
	if (status === 401 || status === 403) return authMessage(body, status, subject);
	if (status === 404) {
		if (authReason(body, status) === 'company_not_found') return authMessage(body, status, subject);
		return [
			`The ${subject.what} does not exist`,
			`Check the ID: the service has no record with it, or it was deleted. ${serviceSaid}`.trim(),
		];
	}
	if (status === 400 || status === 422) {
		const fields = detailsText(body.details);
		return [
			fields
				? `The service rejected the ${subject.what}: ${fields}`
				: `The service rejected the ${subject.what}: ${body.message ?? 'invalid request'}`,
			`Fix the listed fields in the input data or the node parameters and run again.${creditFix(body)}`,
		];
	}
	if (status === 429) {
		return [
			'The service kept limiting the request rate of this key (HTTP 429)',
			`The node waited as the service asked and tried again, for up to 2 minutes. ${rateLimitFix(subject.nodeType)}`,
		];
	}
	if (status === 409) {
		return [
			`The service reported a conflict for the ${subject.what}`,
			serviceSaid || 'Check the data and run again.',
		];
	}
	if (status >= 500) {
		const repeat = subject.notRepeated ? NOT_REPEATED : ' It was retried a few times.';
		return [
			`The Partner Referral Service could not handle the request (HTTP ${status})`,
			`${serviceSaid}${repeat} Try again later.`.trim(),
		];
	}
	return [
		`The service answered HTTP ${status} for the ${subject.what}`,
		serviceSaid || 'Check the node parameters.',
	];
}

/** Built from a fresh object: the thrown error holds the Authorization header. */
export function serviceError(
	node: INode,
	failure: HttpFailure,
	subject: RequestSubject,
	secrets: readonly string[],
	itemIndex?: number,
): NodeApiError {
	const [message, description] = describeFailure(failure, { nodeType: node.type, ...subject });
	const body =
		failure.status !== undefined
			? readServiceErrorBody(failure.body, failure.requestIdHeader)
			: undefined;
	const requestId = body?.requestId ? ` Request ID: ${body.requestId}.` : '';
	const safeMessage = redactSecrets(message, secrets);
	const safeDescription = redactSecrets(`${description}${requestId}`, secrets);
	const errorResponse: JsonObject = {
		message: safeMessage,
		serviceCode: body?.code ?? null,
		requestId: body?.requestId ?? null,
		details: (body?.details ?? []).map((detail) => ({
			field: detail.field ?? null,
			message: detail.message ?? null,
		})),
	};
	return new NodeApiError(node, errorResponse, {
		message: safeMessage,
		description: safeDescription,
		httpCode: failure.status !== undefined ? String(failure.status) : undefined,
		itemIndex,
	});
}

/** The HTTP status an error of the transport carries, as text (e.g. "404"), if it has one. */
export function httpCodeOf(error: unknown): string | undefined {
	const code = asRecord(error)?.httpCode;
	return code === undefined || code === null ? undefined : String(code);
}

/** Whether the service refused the credential: the key or its token (401/403), or its exchange. */
export function refusesCredential(error: unknown): boolean {
	const code = httpCodeOf(error);
	if (code === '401' || code === '403') return true;
	const problem = credentialProblemByMessage(asRecord(error)?.message);
	return problem !== undefined && !problem.temporary;
}
