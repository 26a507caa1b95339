/* eslint-disable @n8n/community-nodes/node-usable-as-tool -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * Diagnostic variants of our side, used only to explain where time goes (never a target):
 *
 * - the "n8n floor": a minimal node that sends each item's body with
 *   `this.helpers.httpRequestWithAuthentication` and nothing else: what any node pays in
 *   n8n for one authenticated request, without our transport or operation code;
 * - the "n8n webhook floor": a trigger whose webhook() only checks the HMAC of the raw body
 *   and starts an execution with the event: what any verified delivery costs in n8n's
 *   webhook handling (express, a Workflow per request, WebhookContext, an execution);
 * - our credential with the generic `{{$credentials.accessToken}}` expression as its
 *   `authenticate` (what it had first), which n8n resolves with its expression engine on
 *   every request, instead of the function it has now. The credential file is not changed;
 *   the bench swaps the credential type in its own credential store.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	N8nHarness,
	simulatorCredentialData,
	TRIGGER_NODE_TYPE,
} from '../test/harness/harness';
import { InMemoryCredentialsHelper } from '../test/harness/credentials-helper';
import { PackageNodeTypes, packageCredentialTypes } from '../test/harness/node-types';
import type { Simulator } from '../test/simulator/types';

export const HTTP_FLOOR_TYPE = 'bench.httpFloor';

/** POSTs every item's JSON to `url`, `inFlight` at a time, with the package's credential. */
class HttpFloorNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'HTTP Floor',
		name: 'httpFloor',
		group: ['transform'],
		version: 1,
		description: 'One authenticated request per item, nothing else',
		defaults: { name: 'HTTP Floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'In Flight', name: 'inFlight', type: 'number', default: 1 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const url = this.getNodeParameter('url', 0) as string;
		const inFlight = Math.max(1, this.getNodeParameter('inFlight', 0) as number);
		const output = new Array<INodeExecutionData>(items.length);
		let next = 0;
		const worker = async () => {
			while (next < items.length) {
				const index = next++;
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					CREDENTIAL_TYPE,
					{
						method: 'POST',
						url,
						body: items[index].json,
						json: true,
					},
				)) as IDataObject;
				output[index] = { json: response.data as IDataObject, pairedItem: { item: index } };
			}
		};
		await Promise.all(Array.from({ length: inFlight }, worker));
		return [output];
	}
}

/** Verifies x-svc-signature-v2 over the raw body with the `secret` parameter, then starts an execution. */
class WebhookFloorTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Webhook Floor',
		name: 'webhookFloor',
		group: ['trigger'],
		version: 1,
		description: 'HMAC check and an execution per delivery, nothing else',
		defaults: { name: 'Webhook Floor' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName: 'Secret',
				name: 'secret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
			},
		],
	};

	webhookMethods = {
		default: {
			checkExists: async () => true,
			create: async () => true,
			delete: async () => true,
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject() as unknown as {
			rawBody?: Buffer;
			headers: Record<string, unknown>;
		};
		const expected = createHmac('sha256', this.getNodeParameter('secret', '') as string)
			.update(request.rawBody ?? Buffer.alloc(0))
			.digest();
		const presented = Buffer.from(String(request.headers['x-svc-signature-v2'] ?? ''), 'hex');
		if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
			this.getResponseObject().status(401).json({ error: 'invalid_signature' });
			return { noWebhookResponse: true };
		}
		return { workflowData: [[{ json: { event: this.getBodyData() } }]] };
	}
}

class BenchNodeTypes extends PackageNodeTypes {
	private readonly httpFloor = new HttpFloorNode();

	private readonly webhookFloor = new WebhookFloorTrigger();

	/** webhookFloor: the trigger type name resolves to the floor trigger (TriggerHost always uses that name). */
	constructor(private readonly options: { webhookFloor?: boolean } = {}) {
		super();
	}

	override getByName(nodeType: string): INodeType | IVersionedNodeType {
		if (nodeType === HTTP_FLOOR_TYPE) return this.httpFloor;
		if (nodeType === TRIGGER_NODE_TYPE && this.options.webhookFloor) return this.webhookFloor;
		return super.getByName(nodeType);
	}
}

/** The harness with the HTTP floor node registered. */
export class BenchHarness extends N8nHarness {
	override readonly nodeTypes = new BenchNodeTypes();
}

/** The harness whose trigger is the webhook floor (for TriggerHost). */
export class WebhookFloorHarness extends N8nHarness {
	override readonly nodeTypes = new BenchNodeTypes({ webhookFloor: true });
}

/** The Bearer header set by a generic expression, resolved by n8n on every request. */
function credentialTypesWithGenericAuthenticate(): Map<string, ICredentialType> {
	const types = packageCredentialTypes();
	const credential = types.get(CREDENTIAL_TYPE);
	if (!credential) throw new Error(`no credential type ${CREDENTIAL_TYPE}`);
	credential.authenticate = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.accessToken}}' } },
	};
	return types;
}

/** The harness whose credential store holds the generic-expression variant of our credential. */
export class GenericAuthenticateHarness extends BenchHarness {
	override readonly credentialsHelper = new InMemoryCredentialsHelper(
		credentialTypesWithGenericAuthenticate(),
	);

	constructor(sim: Simulator) {
		super(sim);
		// The base constructor saved the credential in the store this one replaced.
		this.replaceCredential(simulatorCredentialData(sim));
	}
}
