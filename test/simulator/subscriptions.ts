import { Router, type Response } from 'express';

import type { SimContext } from './context';
import { serviceNowMs } from './context';
import { sendListPage, sendServiceData, sendSubscriptionDeleted } from './answers';
import {
	ApiError,
	requireJsonContentType,
	requireObjectBody,
	validationError,
	type ErrorDetail,
} from './errors';
import { randomSecret } from './ids';
import { readPageRequest, sliceInOrder } from './paging';
import { newServiceId, serviceTimestamp } from './service-values';
import type { ApiKey, LeadTopic, Subscription } from './types';

/**
 * Webhook management (spec section 4) under `{base}/1.0/webhooks/companies/{companyId}/subscriptions`.
 * A subscription belongs to the key that created it: other keys neither list nor delete it.
 * Default personality: list -> { status: 200, data: [{ id, topic, url, createdAt }] } (never the secret),
 * all at once, delete -> { status: 200, data: { id, deleted: true } }, unknown id -> 404. Personalities
 * with `pagesSubscriptions` page the list like GET /leads (oldest first).
 */

export const LEAD_TOPICS: readonly LeadTopic[] = ['lead/create', 'lead/update', 'lead/delete'];

const BASE = '/1.0/webhooks/companies/:companyId/subscriptions';

export function isLoopbackHostname(hostname: string): boolean {
	const host = hostname.toLowerCase();
	return (
		host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
	);
}

function urlProblem(raw: string, allowInsecureLoopback: boolean): string | null {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return `The receiver URL must be an absolute HTTPS URL, e.g. https://example.com/webhook (got ${JSON.stringify(raw)})`;
	}
	if (url.protocol === 'https:') return null;
	if (url.protocol === 'http:' && allowInsecureLoopback && isLoopbackHostname(url.hostname))
		return null;
	const hint =
		url.protocol === 'http:' && isLoopbackHostname(url.hostname)
			? '; the simulator accepts http:// loopback URLs only when started with allowInsecureLoopbackWebhooks (--allow-insecure-loopback-webhooks)'
			: '';
	return `The receiver URL must be HTTPS (got ${JSON.stringify(raw)})${hint}`;
}

function keyOf(res: Response): ApiKey {
	return res.locals.key as ApiKey;
}

function validateSubscription(body: Record<string, unknown>, allowInsecureLoopback: boolean) {
	const { topic, url } = body;
	const missing: ErrorDetail[] = [];
	if (typeof topic !== 'string' || topic === '')
		missing.push({ field: 'topic', message: 'topic is required (a string)' });
	if (typeof url !== 'string' || url === '')
		missing.push({ field: 'url', message: 'url is required (a string)' });
	if (missing.length > 0) throw validationError(missing, 'Subscription');
	const topicText = topic as string;
	if (!(LEAD_TOPICS as readonly string[]).includes(topicText)) {
		const allowed = LEAD_TOPICS.join(', ');
		if (/^payments?\b/i.test(topicText)) {
			const message = `Payment topics are inactive: no payment events are sent (got "${topicText}"); use one of ${allowed}`;
			throw new ApiError(400, 'inactive_topic', message, [{ field: 'topic', message }]);
		}
		const message = `Unknown topic "${topicText}": use one of ${allowed}`;
		throw new ApiError(400, 'invalid_topic', message, [{ field: 'topic', message }]);
	}
	const problem = urlProblem(url as string, allowInsecureLoopback);
	if (problem)
		throw new ApiError(400, 'invalid_url', problem, [{ field: 'url', message: problem }]);
	return { topic: topicText as LeadTopic, url: url as string };
}

export function subscriptionsRouter(ctx: SimContext): Router {
	const router = Router();

	router.post(BASE, (req, res) => {
		requireJsonContentType(req);
		const { topic, url } = validateSubscription(
			requireObjectBody(req),
			ctx.options.allowInsecureLoopbackWebhooks,
		);
		const id = newServiceId(ctx.ids, ctx.personality, (taken) =>
			ctx.state.subscriptions.has(taken),
		);
		const subscription: Subscription = {
			id,
			topic,
			url,
			signingSecret: randomSecret('whsec_', 32),
			ownerClientId: keyOf(res).clientId,
			createdAt: serviceTimestamp(ctx.personality, serviceNowMs(ctx)),
		};
		ctx.state.subscriptions.set(id, subscription);
		const { signingSecret, createdAt } = subscription;
		sendServiceData(res, 200, { id, topic, url, signingSecret, createdAt });
	});

	router.get(BASE, (req, res) => {
		const owner = keyOf(res).clientId;
		const mine = [...ctx.state.subscriptions.values()]
			.filter((sub) => sub.ownerClientId === owner)
			.map(({ id, topic, url, createdAt }) => ({ id, topic, url, createdAt }));
		if (!ctx.personality.pagesSubscriptions) return sendServiceData(res, 200, mine);
		const page = readPageRequest(req, ctx.personality);
		sendListPage(res, sliceInOrder(mine, page, 'oldestFirst'), {
			skip: page.skip,
			total: mine.length,
		});
	});

	router.delete(`${BASE}/:subscriptionId`, (req, res) => {
		const id = String(req.params.subscriptionId);
		const subscription = ctx.state.subscriptions.get(id);
		// Another key's subscription is reported exactly like a missing one (no existence leak).
		if (!subscription || subscription.ownerClientId !== keyOf(res).clientId) {
			throw new ApiError(404, 'not_found', `Subscription "${id}" not found for this API key`);
		}
		ctx.state.subscriptions.delete(id);
		sendSubscriptionDeleted(res, id);
	});

	return router;
}
