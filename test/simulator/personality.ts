/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Personalities: the plausible services behind the spec's "not shown" points: where the
 * spec says "not shown", the service is unknown, so no client may rely on one answer. The default is the simulator's
 * own guess; the other presets together take every variant of every axis at least once, so a
 * client tested under all of them does not depend on one guess.
 *
 * Select one per simulator (`startSimulator({ personality })`), per process
 * (`PARTNER_SIM_PERSONALITY=<name>`) or on the command line (`--personality <name>`).
 */

import type { RequestHandler, Response } from 'express';

export interface Personality {
	/** short kebab-case, used in test titles and `npm run simulator -- --personality <name>` */
	name: string;
	/** one line: what this service does differently */
	description: string;
	/** the service's own maximum page size for GET /leads and GET subscriptions (null: honours limit, max 100) */
	listPageCap: number | null;
	/** list answers carry no end hint / `hasMore` beside data / `next` (opaque string or null) beside data; bare bodies carry none */
	listHints: 'none' | 'hasMore' | 'next';
	/** success bodies `{data, context:{requestId}, status}` or the bare object/array; token answer unchanged */
	bodies: 'wrapped' | 'bare';
	/** how schema entries carry picklist options */
	picklistShape:
		| 'picklistValues-objects'
		| 'options-strings'
		| 'values-objects'
		| 'options-objects';
	/** lead PATCH answers the whole lead / id + changed fields + updatedAt / 200 with an empty body / 204 */
	patchAnswer: 'full' | 'partial' | 'empty' | 'noContent';
	/** subscription DELETE answers 200 `{id, deleted:true}` / 204 without a body */
	deleteAnswer: 'ok' | 'noContent';
	/** status of every authentication failure (API routes and token endpoint) */
	authFailureStatus: 401 | 403;
	/** error answers: JSON envelope / text/plain "<code>: <message>" / a text/html page */
	errorBodies: 'json' | 'text' | 'html';
	/** lead and subscription ids */
	ids: 'hex24' | 'uuid' | 'numeric';
	/** createdAt/updatedAt and webhook timestamps with or without milliseconds (ISO 8601 UTC, Z) */
	timestamps: 'millis' | 'seconds';
	/** Retry-After on 429 */
	retryAfter: 'seconds' | 'httpDate';
	leadCreateStatus: 200 | 201;
	/** order of GET /leads: by creation, oldest or newest first; or by last change, the latest last */
	listOrder: 'oldestFirst' | 'newestFirst' | 'lastChangedLast';
	/**
	 * Added: GET subscriptions pages like GET /leads (skip/limit, default limit 20, listPageCap,
	 * listHints); false answers every subscription at once (the default, as before personalities).
	 */
	pagesSubscriptions: boolean;
	/**
	 * Added: how the service retries a delivery that got no 200 when the caller does not say:
	 * exponential backoff from 1 s, 6 attempts (the simulator's guess), or briefly, 5 retries
	 * over about 6 seconds, then it gives up (a service that sheds its backlog quickly).
	 */
	deliveryRetries: 'backoff' | 'brief';
	/**
	 * Added: how many deliveries the service sends at once when the caller does not say: a few
	 * (8, the simulator's guess), 64, or every pending delivery at once (a bulk import fanned out
	 * with no limit: the worst burst a receiver can get).
	 */
	deliveriesAtOnce: number | 'all';
	/**
	 * Added: the Date header of the service's answers: in the service's own clock (as an HTTP
	 * server with a clock sends it), or none (a gateway that strips it).
	 */
	dateHeader: 'serviceClock' | 'none';
	/**
	 * Added: leads created at the same moment (a bulk import; the same second with timestamps in
	 * seconds) listed in the order they were created, or the one changed last last among them
	 * (a database sorting by createdAt alone returns ties in storage order, which a write
	 * changes): the list's order then moves under a reader that pages through it.
	 */
	tieOrder: 'creation' | 'lastChange';
}

/** The 'brief' retry schedule: 5 retries over about 6 seconds. */
export const BRIEF_DELIVERY_RETRY_DELAYS_MS: readonly number[] = [500, 800, 1_200, 1_500, 2_000];

export const DEFAULT_PERSONALITY: Personality = Object.freeze({
	name: 'default',
	description:
		"The simulator's own guess: wrapped bodies, limit honoured up to 100, 401, JSON errors, 24-hex ids",
	listPageCap: null,
	listHints: 'none',
	bodies: 'wrapped',
	picklistShape: 'picklistValues-objects',
	patchAnswer: 'full',
	deleteAnswer: 'ok',
	authFailureStatus: 401,
	errorBodies: 'json',
	ids: 'hex24',
	timestamps: 'millis',
	retryAfter: 'seconds',
	leadCreateStatus: 201,
	listOrder: 'oldestFirst',
	pagesSubscriptions: false,
	deliveryRetries: 'backoff',
	deliveriesAtOnce: 8,
	dateHeader: 'serviceClock',
	tieOrder: 'creation',
});

export const PERSONALITIES: readonly Personality[] = Object.freeze([
	DEFAULT_PERSONALITY,
	Object.freeze<Personality>({
		name: 'capped-7-bare-403-text',
		description:
			'Pages of at most 7, bare bodies without end hints, newest first, PATCH/DELETE 204, 403 on auth failures, text/plain errors, UUIDs; every delivery sent at once, retried briefly',
		listPageCap: 7,
		listHints: 'none',
		bodies: 'bare',
		picklistShape: 'options-strings',
		patchAnswer: 'noContent',
		deleteAnswer: 'noContent',
		authFailureStatus: 403,
		errorBodies: 'text',
		ids: 'uuid',
		timestamps: 'seconds',
		retryAfter: 'httpDate',
		leadCreateStatus: 200,
		listOrder: 'newestFirst',
		pagesSubscriptions: true,
		deliveryRetries: 'brief',
		deliveriesAtOnce: 'all',
		dateHeader: 'serviceClock',
		tieOrder: 'creation',
	}),
	Object.freeze<Personality>({
		name: 'capped-20-hasmore-html',
		description:
			'Pages of at most 20 with hasMore, partial PATCH answers, HTML error pages, numeric ids, Retry-After as an HTTP date, 64 deliveries at once',
		listPageCap: 20,
		listHints: 'hasMore',
		bodies: 'wrapped',
		picklistShape: 'values-objects',
		patchAnswer: 'partial',
		deleteAnswer: 'ok',
		authFailureStatus: 401,
		errorBodies: 'html',
		ids: 'numeric',
		timestamps: 'millis',
		retryAfter: 'httpDate',
		leadCreateStatus: 201,
		listOrder: 'oldestFirst',
		pagesSubscriptions: true,
		deliveryRetries: 'backoff',
		deliveriesAtOnce: 64,
		dateHeader: 'none',
		tieOrder: 'creation',
	}),
	Object.freeze<Personality>({
		name: 'capped-30-next-empty-patch',
		description:
			'Pages of at most 30 with a `next` cursor, newest first, the lead changed last first among leads created at the same moment (the order moves under a reader), PATCH answers 200 with an empty body, DELETE 204, 403, timestamps without milliseconds',
		listPageCap: 30,
		listHints: 'next',
		bodies: 'wrapped',
		picklistShape: 'options-objects',
		patchAnswer: 'empty',
		deleteAnswer: 'noContent',
		authFailureStatus: 403,
		errorBodies: 'json',
		ids: 'hex24',
		timestamps: 'seconds',
		retryAfter: 'seconds',
		leadCreateStatus: 200,
		listOrder: 'newestFirst',
		pagesSubscriptions: true,
		deliveryRetries: 'backoff',
		deliveriesAtOnce: 8,
		dateHeader: 'serviceClock',
		tieOrder: 'lastChange',
	}),
	Object.freeze<Personality>({
		name: 'capped-7-next-partial-uuid',
		description:
			'Pages of at most 7 with a `next` cursor, the lead changed last listed last, partial PATCH answers, text/plain errors, UUIDs, Retry-After as an HTTP date',
		listPageCap: 7,
		listHints: 'next',
		bodies: 'wrapped',
		picklistShape: 'options-strings',
		patchAnswer: 'partial',
		deleteAnswer: 'ok',
		authFailureStatus: 401,
		errorBodies: 'text',
		ids: 'uuid',
		timestamps: 'millis',
		retryAfter: 'httpDate',
		leadCreateStatus: 201,
		listOrder: 'lastChangedLast',
		pagesSubscriptions: true,
		deliveryRetries: 'backoff',
		deliveriesAtOnce: 8,
		dateHeader: 'serviceClock',
		tieOrder: 'creation',
	}),
]);

export const PERSONALITY_ENV_VAR = 'PARTNER_SIM_PERSONALITY';

export function personalityNamed(name: string): Personality {
	const found = PERSONALITIES.find((personality) => personality.name === name);
	if (found) return found;
	const known = PERSONALITIES.map((personality) => personality.name).join(', ');
	throw new Error(`Unknown simulator personality "${name}": use one of ${known}`);
}

/** A hand-made personality must still describe a service that can answer (a page of at least one). */
function checked(personality: Personality): Personality {
	const cap = personality.listPageCap;
	if (cap !== null && !(Number.isInteger(cap) && cap >= 1)) {
		throw new Error(
			`Personality "${personality.name}": listPageCap must be null or a positive integer (got ${String(cap)})`,
		);
	}
	return personality;
}

/** What `startSimulator` uses: the option (a Personality or a name), else $PARTNER_SIM_PERSONALITY, else the default. */
export function resolvePersonality(option: Personality | string | undefined): Personality {
	if (typeof option === 'string') return personalityNamed(option);
	if (option) return checked(option);
	const fromEnvironment = process.env[PERSONALITY_ENV_VAR];
	return fromEnvironment ? personalityNamed(fromEnvironment) : DEFAULT_PERSONALITY;
}

/** Marks every answer of the service's routes (not the control API) as this personality's. */
export function usePersonality(personality: Personality): RequestHandler {
	return (_req, res, next) => {
		res.locals.personality = personality;
		next();
	};
}

/** The personality answering `res`; the default for answers outside the service (control API). */
export function personalityOf(res: Response): Personality {
	return (res.locals.personality as Personality | undefined) ?? DEFAULT_PERSONALITY;
}
