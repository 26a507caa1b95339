import express, {
	type ErrorRequestHandler,
	type NextFunction,
	type Request,
	type RequestHandler,
	type Response,
} from 'express';

import { newRequestId } from './ids';
import { personalityOf, type Personality } from './personality';

/**
 * Response envelopes (the default personality's; others send bare bodies):
 *   success  { data, context: { requestId }, status }
 *   error    { status, error: { code, message, details? }, context: { requestId } }
 * Every response also carries an `x-request-id` header with the same id.
 */

export interface ErrorDetail {
	field: string;
	message: string;
}

export interface ErrorBody {
	status: number;
	error: { code: string; message: string; details?: ErrorDetail[] };
	context: { requestId: string };
}

/** Thrown by handlers; turned into an error envelope by `errorHandler`. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details?: ErrorDetail[],
		readonly headers?: Record<string, string>,
	) {
		super(message);
		this.name = 'ApiError';
	}
}

/** 400 validation_failed with one details entry per problem; the message repeats them for clients that only show the message. */
export function validationError(details: ErrorDetail[], what = 'Request'): ApiError {
	const summary = details.map((d) => d.message).join('; ');
	return new ApiError(400, 'validation_failed', `${what} validation failed: ${summary}`, details);
}

export const assignRequestId: RequestHandler = (_req, res, next) => {
	const id = newRequestId();
	res.locals.requestId = id;
	res.setHeader('x-request-id', id);
	next();
};

export function requestIdOf(res: Response): string {
	return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}

export function buildErrorBody(
	res: Response,
	status: number,
	code: string,
	message: string,
	details?: ErrorDetail[],
): ErrorBody {
	const error: ErrorBody['error'] = { code, message };
	if (details && details.length > 0) error.details = details;
	return { status, error, context: { requestId: requestIdOf(res) } };
}

/** Retry-After as the personality writes it: delay-seconds, or the HTTP date that many seconds from now (rounded down, so 0 means now). */
function retryAfterValue(personality: Personality, seconds: string): string {
	if (personality.retryAfter === 'seconds' || !/^\d+$/.test(seconds)) return seconds;
	return new Date(Math.floor((Date.now() + Number(seconds) * 1000) / 1000) * 1000).toUTCString();
}

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The one place error answers take the personality's shape: every authentication failure
 * (all of the simulator's 401s are) gets the personality's status, and the body is the JSON
 * envelope, `text/plain` "<code>: <message>", or an HTML page.
 */
export function sendError(
	res: Response,
	status: number,
	code: string,
	message: string,
	details?: ErrorDetail[],
	headers?: Record<string, string>,
): void {
	if (res.headersSent) return;
	const personality = personalityOf(res);
	const answered = status === 401 ? personality.authFailureStatus : status;
	for (const [name, value] of Object.entries(headers ?? {})) {
		res.setHeader(
			name,
			name.toLowerCase() === 'retry-after' ? retryAfterValue(personality, value) : value,
		);
	}
	// RFC 6750: a 401 tells the client which scheme it failed; clients may key on it.
	if (answered === 401) res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
	res.status(answered);
	if (personality.errorBodies === 'text') {
		res.type('text/plain; charset=utf-8').send(`${code}: ${message}`);
	} else if (personality.errorBodies === 'html') {
		const title = `${answered} ${escapeHtml(code)}`;
		res
			.type('text/html; charset=utf-8')
			.send(
				`<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(message)}</p></body></html>\n`,
			);
	} else {
		res.json(buildErrorBody(res, answered, code, message, details));
	}
}

/** The control API's answer (the service's answers are shaped in answers.ts). */
export function sendData(res: Response, status: number, data: unknown): void {
	res.status(status).json({ data, context: { requestId: requestIdOf(res) }, status });
}

/** Maps thrown errors (ours and body-parser's) to the error envelope. */
export const errorHandler: ErrorRequestHandler = (
	err: unknown,
	_req: Request,
	res: Response,
	next: NextFunction,
) => {
	if (res.headersSent) return next(err);
	if (err instanceof ApiError) {
		return sendError(res, err.status, err.code, err.message, err.details, err.headers);
	}
	const type = (err as { type?: string } | null)?.type;
	if (type === 'entity.parse.failed') {
		return sendError(
			res,
			400,
			'invalid_json',
			`The request body is not valid JSON: ${(err as Error).message}`,
		);
	}
	if (type === 'entity.too.large') {
		return sendError(
			res,
			413,
			'payload_too_large',
			'The request body is larger than the 1 MB limit',
		);
	}
	if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
		return sendError(res, 415, 'unsupported_content_type', 'Send the body as UTF-8 JSON');
	}
	const message = err instanceof Error ? err.message : String(err);
	sendError(res, 500, 'internal_error', `Internal simulator error: ${message}`);
};

/** Parses JSON bodies only (1 MB limit); other content types are left for the handler to refuse with 415. */
export const jsonBody: RequestHandler = express.json({
	limit: '1mb',
	type: ['application/json', 'application/*+json'],
});

/** True for application/json and application/*+json (charset parameters allowed). */
export function isJsonRequest(req: Request): boolean {
	return Boolean(req.is(['application/json', 'application/*+json']));
}

export function requireJsonContentType(req: Request): void {
	if (!isJsonRequest(req)) {
		const got = req.headers['content-type'] ?? 'none';
		throw new ApiError(
			415,
			'unsupported_content_type',
			`Content-Type must be application/json (got ${got})`,
		);
	}
}

/** The parsed body as a plain object, or a 400 explaining what was wrong. */
export function requireObjectBody(req: Request): Record<string, unknown> {
	const body: unknown = req.body;
	if (body === undefined) return {};
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw new ApiError(400, 'invalid_body', 'The request body must be a JSON object');
	}
	return body as Record<string, unknown>;
}
