import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { isLead } from '../helpers/leadOutput';
import { topicName } from '../helpers/topicNames';
import { readListPage } from '../transport/envelope';
import { apiRequestRaw } from '../transport/request';

/**
 * The subscription picker of Webhook Subscription > Delete: the service lists the
 * subscriptions of the credential's key in one answer, without their secrets.
 */
export async function searchSubscriptions(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const body = await apiRequestRaw.call(this, {
		method: 'GET',
		api: 'webhooks',
		path: '',
		what: 'list of webhook subscriptions',
	});
	const words = (filter ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean);
	const results: INodeListSearchItems[] = [];
	for (const subscription of readListPage<unknown>(body).items) {
		if (!isLead(subscription) || typeof subscription.id !== 'string' || subscription.id === '') continue;
		const url = typeof subscription.url === 'string' ? subscription.url : '';
		const name = `${topicName(subscription.topic)} → ${url || subscription.id}`;
		const haystack = `${name} ${String(subscription.topic)} ${subscription.id}`.toLowerCase();
		if (words.every((word) => haystack.includes(word))) results.push({ name, value: subscription.id });
	}
	return { results };
}
