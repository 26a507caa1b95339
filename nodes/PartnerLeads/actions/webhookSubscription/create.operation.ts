import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isLoopbackHost } from '../../../shared/transport/connection';
import { apiRequest } from '../../../shared/transport/request';
import { isRecord } from '../../../shared/transport/record';
import { LEAD_TOPIC_OPTIONS } from '../../../shared/topics';
import { defineOperation } from '../common/defineOperation';
import { shownFor } from '../common/descriptions';

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
		options: LEAD_TOPIC_OPTIONS,
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

export const description = shownFor('webhookSubscription', 'create', properties);

/** HTTPS only; plain http is let through on loopback (local tests). */
function receiverUrl(this: IExecuteFunctions, itemIndex: number): string {
	const raw = String(this.getNodeParameter('url', itemIndex, '')).trim();
	const url = URL.canParse(raw) ? new URL(raw) : undefined;
	if (
		!url ||
		(url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
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

export const execute = defineOperation(async function () {
	return {
		prepare: (itemIndex) => ({
			topic: String(this.getNodeParameter('topic', itemIndex)),
			url: receiverUrl.call(this, itemIndex),
		}),
		run: async (itemIndex, body: { topic: string; url: string }) => {
			const payload = await apiRequest.call(this, {
				method: 'POST',
				api: 'webhooks',
				path: '',
				body,
				what: 'webhook subscription',
				itemIndex,
			});
			const subscription: IDataObject = isRecord(payload)
				? { ...payload }
				: { result: payload as IDataObject[string] };
			if (typeof subscription.signingSecret === 'string')
				subscription.signingSecretNotice = SIGNING_SECRET_NOTICE;
			return subscription;
		},
	};
});
