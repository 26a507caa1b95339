import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runItems } from '../../helpers/itemRunner';
import { isLead } from '../../helpers/leadOutput';
import { apiRequest } from '../../transport/request';

export const SIGNING_SECRET_NOTICE =
	'The signingSecret is shown only in this answer: the service cannot show it again. Keep it like a password (for example in an n8n credential) and use it to verify the x-svc-signature-v2 header of deliveries. Do not log it or share it.';

const properties: INodeProperties[] = [
	{
		displayName:
			"This operation returns the subscription's signing secret: handing it to you is its purpose, and the service shows it only once. It is in the node's output, so anyone who can see this workflow's executions can read it: keep it like a password. To receive lead events in a workflow, use the Partner Referral Service Trigger node, which manages its subscriptions and keeps their secrets encrypted.",
		name: 'signingSecretNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Topic',
		name: 'topic',
		type: 'options',
		required: true,
		default: 'lead/create',
		options: [
			{ name: 'Lead Created', value: 'lead/create', description: 'A new lead is submitted' },
			{ name: 'Lead Deleted', value: 'lead/delete', description: 'A lead is deleted' },
			{ name: 'Lead Updated', value: 'lead/update', description: 'An existing lead is modified' },
		],
		description: 'The event to be notified of. One subscription is for exactly one topic.',
	},
	{
		displayName: 'Receiver URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/webhook',
		description:
			'The HTTPS address the service sends the events to. It must confirm each one with a success answer (status 200).',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['create'] } },
	properties,
);

function isLoopback(hostname: string): boolean {
	return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Spec 6.6: receivers must be HTTPS. Plain http is left to the service only on loopback (local tests). */
function receiverUrl(this: IExecuteFunctions, itemIndex: number): string {
	const raw = String(this.getNodeParameter('url', itemIndex, '')).trim();
	let url: URL | undefined;
	try {
		url = new URL(raw);
	} catch {
		url = undefined;
	}
	if (
		!url ||
		(url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
	) {
		throw new NodeOperationError(
			this.getNode(),
			`'Receiver URL' is not an HTTPS address: "${raw}"`,
			{
				itemIndex,
				description:
					'The service delivers webhooks over HTTPS only. Use the HTTPS address of your receiver, e.g. the production URL of an n8n Webhook node behind HTTPS.',
			},
		);
	}
	return raw;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return await runItems.call(this, items.length, 1, async (itemIndex) => {
		const topic = String(this.getNodeParameter('topic', itemIndex));
		const url = receiverUrl.call(this, itemIndex);
		const payload = await apiRequest.call(this, {
			method: 'POST',
			api: 'webhooks',
			path: '',
			body: { topic, url },
			what: 'webhook subscription',
			itemIndex,
		});
		const subscription: IDataObject = isLead(payload)
			? { ...payload }
			: { result: payload as IDataObject[string] };
		if (typeof subscription.signingSecret === 'string')
			subscription.signingSecretNotice = SIGNING_SECRET_NOTICE;
		return [{ json: subscription, pairedItem: { item: itemIndex } }];
	});
}
