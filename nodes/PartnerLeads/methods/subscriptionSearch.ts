import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { topicName } from '../../shared/topics';
import { allOf } from '../../shared/transport/paging';
import { isRecord, recordId } from '../../shared/transport/record';

/** The subscription picker of Webhook Subscription > Delete (listed without secrets). */
export async function searchSubscriptions(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const subscriptions = await allOf.call(this, {
		api: 'webhooks',
		path: '',
		what: 'list of webhook subscriptions',
	});
	const words = (filter ?? '').trim().toLowerCase().split(/\s+/).filter(Boolean);
	const results: INodeListSearchItems[] = [];
	for (const subscription of subscriptions) {
		// some services number their records: the id is the same either way
		const id = recordId(subscription);
		if (!isRecord(subscription) || !id) continue;
		const url = typeof subscription.url === 'string' ? subscription.url : '';
		const name = `${topicName(subscription.topic)} → ${url || id}`;
		const haystack = `${name} ${String(subscription.topic)} ${id}`.toLowerCase();
		if (words.every((word) => haystack.includes(word))) results.push({ name, value: id });
	}
	return { results };
}
