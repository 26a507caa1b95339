import type { Environment } from './types';

/**
 * Route keys name the spec's endpoints independently of environment and ids
 * ('GET /leads/:id'); faults and stats are keyed by them.
 */
export const ROUTE_KEYS = [
	'POST /oauth/token',
	'GET /schema/lead',
	'POST /leads',
	'GET /leads',
	'GET /leads/:id',
	'PATCH /leads/:id',
	'POST /subscriptions',
	'GET /subscriptions',
	'DELETE /subscriptions/:id',
] as const;

/** Path prefixes of the two environments, relative to the origin. */
export const ENVIRONMENT_PATHS: Readonly<Record<Environment, string>> = {
	production: '/prod',
	nonProduction: '/dev',
};

export const AUTH_PATH = '/auth';
export const CONTROL_PATH = '/__control';

const PATTERNS: Array<[RegExp, string]> = [
	[/^\/(?:prod|dev)\/1\.0\/api\/company\/[^/]+\/schema\/lead\/?$/, '/schema/lead'],
	[/^\/(?:prod|dev)\/1\.0\/api\/company\/[^/]+\/leads\/?$/, '/leads'],
	[/^\/(?:prod|dev)\/1\.0\/api\/company\/[^/]+\/leads\/[^/]+\/?$/, '/leads/:id'],
	[/^\/(?:prod|dev)\/1\.0\/webhooks\/companies\/[^/]+\/subscriptions\/?$/, '/subscriptions'],
	[
		/^\/(?:prod|dev)\/1\.0\/webhooks\/companies\/[^/]+\/subscriptions\/[^/]+\/?$/,
		'/subscriptions/:id',
	],
	[/^\/auth\/oauth\/token\/?$/, '/oauth/token'],
];

/** 'METHOD /pattern' for the spec's endpoints, or `undefined` for anything else. */
export function routeKeyOf(method: string, path: string): string | undefined {
	for (const [pattern, key] of PATTERNS) {
		if (pattern.test(path)) return `${method} ${key}`;
	}
	return undefined;
}

/** The company id segment of an API or webhook-management path. */
export function companyIdOfPath(path: string): string | undefined {
	const match = /^\/1\.0\/(?:api\/company|webhooks\/companies)\/([^/]+)/.exec(path);
	if (!match) return undefined;
	try {
		return decodeURIComponent(match[1]);
	} catch {
		return match[1];
	}
}
