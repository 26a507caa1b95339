import { Router, type RequestHandler } from 'express';

import type { SimContext } from './context';
import { ApiError, isJsonRequest, jsonBody, type ErrorDetail } from './errors';
import { randomSecret } from './ids';
import { companyIdOfPath } from './routes';
import type { Environment } from './types';

/**
 * OAuth 2.0 client credentials (spec section 5) and the bearer check on every API request.
 * Each failure has its own error code so a client can tell the user what to fix.
 */

const TOKEN_FIELDS = ['grant_type', 'client_id', 'client_secret', 'audience'] as const;

function withoutTrailingSlash(value: string): string {
	return value.replace(/\/+$/, '');
}

/** Which environment an audience names: exactly `url` or `devUrl` (a trailing slash is tolerated). */
export function environmentOfAudience(ctx: SimContext, audience: string): Environment | undefined {
	const normalised = withoutTrailingSlash(audience);
	if (normalised === ctx.urls.url) return 'production';
	if (normalised === ctx.urls.devUrl) return 'nonProduction';
	return undefined;
}

export function audienceOf(ctx: SimContext, environment: Environment): string {
	return environment === 'production' ? ctx.urls.url : ctx.urls.devUrl;
}

function environmentName(environment: Environment): string {
	return environment === 'production' ? 'production' : 'non-production';
}

/** POST {authUrl}/oauth/token */
export function tokenRouter(ctx: SimContext): Router {
	const router = Router();
	router.post('/oauth/token', jsonBody, (req, res) => {
		ctx.options.onTokenRequest?.({
			address: req.socket.remoteAddress ?? '',
			port: req.socket.remotePort ?? 0,
		});
		if (!isJsonRequest(req)) {
			throw new ApiError(
				415,
				'unsupported_content_type',
				`The token endpoint accepts only Content-Type: application/json (got ${req.headers['content-type'] ?? 'none'}); ` +
					'send grant_type, client_id, client_secret and audience as a JSON object',
			);
		}
		const body: unknown = req.body;
		if (typeof body !== 'object' || body === null || Array.isArray(body)) {
			throw new ApiError(400, 'invalid_request', 'The token request body must be a JSON object');
		}
		const fields = body as Record<string, unknown>;
		if (fields.grant_type !== undefined && fields.grant_type !== 'client_credentials') {
			throw new ApiError(
				400,
				'unsupported_grant_type',
				`grant_type must be "client_credentials" (got ${JSON.stringify(fields.grant_type)})`,
			);
		}
		const missing: ErrorDetail[] = TOKEN_FIELDS.filter(
			(field) => typeof fields[field] !== 'string' || fields[field] === '',
		).map((field) => ({ field, message: `${field} is required (a non-empty string)` }));
		if (missing.length > 0) {
			const names = missing.map((d) => d.field).join(', ');
			throw new ApiError(400, 'invalid_request', `The token request is missing ${names}`, missing);
		}
		const {
			client_id: clientId,
			client_secret: clientSecret,
			audience,
		} = fields as Record<string, string>;
		const key = ctx.state.keys.get(clientId);
		// One code for both cases, as real issuers do; the message still helps a human.
		if (!key)
			throw new ApiError(
				401,
				'invalid_client',
				'Unknown client_id: check the Client ID of the API key',
			);
		if (key.clientSecret !== clientSecret) {
			throw new ApiError(
				401,
				'invalid_client',
				'Wrong client_secret for this client_id: check the Client Secret',
			);
		}
		if (key.revoked) {
			throw new ApiError(
				401,
				'key_revoked',
				'This API key has been revoked in the portal: create a new key and use its credentials',
			);
		}
		const environment = environmentOfAudience(ctx, audience);
		if (!environment) {
			throw new ApiError(
				401,
				'invalid_audience',
				`Unknown audience "${audience}": use the API base address of the environment, ` +
					`${ctx.urls.url} (production) or ${ctx.urls.devUrl} (non-production)`,
			);
		}
		const lifetime = ctx.options.tokenLifetimeSeconds;
		const token = randomSecret('sat_', 32);
		ctx.state.tokens.set(token, { clientId, environment, expiresAt: Date.now() + lifetime * 1000 });
		res.setHeader('Cache-Control', 'no-store');
		res.status(200).json({ access_token: token, token_type: 'Bearer', expires_in: lifetime });
	});
	return router;
}

/** Bearer check, company check and per-key rate limit for every API request of one environment. */
export function requireBearer(ctx: SimContext, environment: Environment): RequestHandler {
	return (req, res, next) => {
		const header = req.headers.authorization;
		if (header === undefined || header.trim() === '') {
			throw new ApiError(
				401,
				'missing_authorization',
				'Missing Authorization header: send "Authorization: Bearer <access token>" with a token from the token endpoint',
			);
		}
		const match = /^Bearer +(\S+) *$/i.exec(header);
		if (!match) {
			throw new ApiError(
				401,
				'malformed_authorization',
				'Malformed Authorization header: it must be "Bearer <access token>"',
			);
		}
		const value = match[1];
		if (ctx.state.keysBySecret.has(value)) {
			throw new ApiError(
				401,
				'client_secret_as_bearer',
				'The bearer value is a Client Secret, not an access token: exchange the Client ID and Client Secret ' +
					'for an access token at the token endpoint and send that token',
			);
		}
		const token = ctx.state.tokens.get(value);
		if (!token)
			throw new ApiError(
				401,
				'invalid_token',
				'The access token is not valid (unknown token): request a new access token',
			);
		if (token.expiresAt <= Date.now()) {
			throw new ApiError(
				401,
				'token_expired',
				'The access token has expired: request a new access token',
			);
		}
		if (token.environment !== environment) {
			throw new ApiError(
				401,
				'wrong_audience',
				`The access token was issued for the ${environmentName(token.environment)} audience ` +
					`${audienceOf(ctx, token.environment)}, but this is the ${environmentName(environment)} API, ` +
					`which expects audience ${audienceOf(ctx, environment)}: request a token with that audience`,
			);
		}
		const key = ctx.state.keys.get(token.clientId);
		if (!key)
			throw new ApiError(
				401,
				'invalid_token',
				'The access token belongs to a key that no longer exists',
			);
		const companyId = companyIdOfPath(req.path);
		if (companyId !== undefined && companyId !== ctx.state.companyId) {
			throw new ApiError(
				404,
				'company_not_found',
				`Company "${companyId}" not found: check the Company ID (the 24-character portal identifier)`,
			);
		}
		const retryAfter = ctx.rateLimiter.take(key.clientId);
		if (retryAfter !== null) {
			throw new ApiError(
				429,
				'rate_limited',
				`Rate limit of ${ctx.rateLimiter.requestsPerSecond} requests per second exceeded for this API key; retry after ${retryAfter} seconds`,
				undefined,
				{ 'Retry-After': String(retryAfter) },
			);
		}
		res.locals.key = key;
		next();
	};
}
