import { credentialProblemByMessage, isCredentialProblem } from './connection';

/**
 * What an HTTP failure looked like, read from whatever n8n's request helpers threw
 * (an axios-style error, or a NodeApiError wrapping one). Nothing else of the thrown
 * object is kept: it carries the request configuration, with the Authorization header.
 */
export interface HttpFailure {
	status?: number;
	body?: unknown;
	retryAfter?: string;
	requestIdHeader?: string;
	/** network error code such as ECONNREFUSED or ECONNRESET, when there was no response */
	networkCode?: string;
	/** message of the underlying error, when there was no response */
	networkMessage?: string;
	/** the credential's values or its token exchange failed: the message says what to fix */
	credentialProblem?: string;
	/** the token exchange failed for a while only (the issuer answered 429/5xx or not at all) */
	credentialProblemTemporary?: boolean;
	/** how to fix the credential problem */
	credentialProblemFix?: string;
}

type Loose = Record<string, unknown> | undefined;

function asRecord(value: unknown): Loose {
	return value !== null && typeof value === 'object'
		? (value as Record<string, unknown>)
		: undefined;
}

function headerValue(headers: unknown, name: string): string | undefined {
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
	const credentialProblem = candidates.find((candidate) => isCredentialProblem(candidate));
	if (credentialProblem) {
		return {
			credentialProblem: String(credentialProblem.message),
			credentialProblemTemporary: (credentialProblem as { temporary?: unknown }).temporary === true,
			credentialProblemFix: String((credentialProblem as { fix?: unknown }).fix ?? ''),
		};
	}
	// n8n 1.x drops the cause: our credential problem is known by its message.
	const rewrapped = credentialProblemByMessage(outer?.message);
	if (rewrapped) {
		return {
			credentialProblem: String(outer?.message),
			credentialProblemTemporary: rewrapped.temporary,
			credentialProblemFix: rewrapped.fix,
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
				retryAfter: headerValue(response.headers, 'retry-after'),
				requestIdHeader: headerValue(response.headers, 'x-request-id'),
			};
		}
	}
	for (const candidate of candidates) {
		const code = candidate?.code;
		if (typeof code === 'string' && code.length > 0 && !/^\d+$/.test(code)) {
			return { networkCode: code, networkMessage: String(candidate?.message ?? code) };
		}
	}
	// n8n 1.x: only the NodeApiError itself is left, with the status (or network code) and
	// the response body it kept.
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

/**
 * A text answer that starts with an error code in snake_case ("invalid_token: ...", or
 * "403 invalid_token ..." from a page heading) names its reason as a JSON body would.
 */
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
				: typeof body === 'string' && body.trim()
					? body.trim().slice(0, 500)
					: undefined;
	const requestId = asRecord(record?.context)?.requestId;
	return {
		code: typeof source?.code === 'string' ? source.code : undefined,
		message,
		details,
		requestId: typeof requestId === 'string' ? requestId : requestIdHeader,
	};
}
