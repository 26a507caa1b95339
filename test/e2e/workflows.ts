/**
 * The workflows the scenarios import into n8n, built from the nodes' contract:
 * credential `partnerLeadsApi`, action node `n8n-nodes-partner-leads.partnerLeads`,
 * trigger node `n8n-nodes-partner-leads.partnerLeadsTrigger` (typeVersion 1; the trigger 1.1, its
 * one version).
 *
 * Workflows are started through a production Webhook node, which runs the same way in 1.x and 2.x
 * (a manual run goes through the editor's push channel and changed shape between the lines).
 */
import { randomUUID } from 'node:crypto';

export const PACKAGE_NAME = 'n8n-nodes-partner-leads';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.partnerLeads`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.partnerLeadsTrigger`;
/** The trigger's one version (what n8n gives a trigger added now). */
export const TRIGGER_NODE_VERSION = 1.1;

export const NODE = {
	webhook: 'Webhook',
	split: 'Split Leads',
	create: 'Create Lead',
	get: 'Get Lead',
	trigger: 'Partner Leads Trigger',
	schema: 'Get Lead Schema',
	getMany: 'Get Many Leads',
	upsert: 'Create or Update Lead',
} as const;

export interface CredentialRef {
	id: string;
	name: string;
}

export interface WorkflowDefinition {
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings: Record<string, unknown>;
}

function connect(...names: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let index = 0; index + 1 < names.length; index++) {
		connections[names[index]!] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

export const SETTINGS = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'all',
	saveDataErrorExecution: 'all',
	saveManualExecutions: true,
};

/**
 * When the Webhook node answers: with the last node's items, or as soon as n8n has taken the call.
 * In queue mode a caller may only wait on the second. n8n (1.123.81 and 2.41.1) removes a job from
 * Redis once a worker finished it; a webhook process that begins to wait for the job
 * (`job.finished()` in `enqueueExecution`) only after that finds it neither completed nor failed,
 * has missed the completion event, and never answers, though the execution succeeded. Seen with
 * debug logs on 1.123.81: the worker finished execution 32 70 ms after the webhook process had
 * logged it enqueued, while that process still ran its `workflowExecuteBefore` hooks.
 */
export type WebhookAnswer = 'lastNode' | 'onReceived';

/** The production Webhook node that starts a workflow. */
export function webhookStartNode(
	path: string,
	name: string = NODE.webhook,
	responseMode: WebhookAnswer = 'lastNode',
): Record<string, unknown> {
	return {
		id: randomUUID(),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode,
			responseData: 'allEntries',
			options: {},
		},
	};
}

/** n8n's own HTTP Request node with these parameters, and our credential when given. */
export function httpRequestNode(
	name: string,
	x: number,
	parameters: Record<string, unknown>,
	credential?: CredentialRef,
): Record<string, unknown> {
	return {
		id: randomUUID(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [x, 0],
		...(credential ? { credentials: { partnerLeadsApi: credential } } : {}),
		parameters,
	};
}

/** n8n's own HTTP Request node sending GET `url` with our credential (a predefined credential type). */
export function getWithOurCredential(
	name: string,
	credential: CredentialRef,
	url: string,
	x = 220,
): Record<string, unknown> {
	const parameters = {
		method: 'GET',
		url,
		authentication: 'predefinedCredentialType',
		nodeCredentialType: 'partnerLeadsApi',
		options: {},
	};
	return httpRequestNode(name, x, parameters, credential);
}

/** One of our action nodes with the given credential and parameters. */
function actionNode(
	name: string,
	position: [number, number],
	credential: CredentialRef,
	parameters: Record<string, unknown>,
): Record<string, unknown> {
	return {
		id: randomUUID(),
		name,
		type: ACTION_NODE_TYPE,
		typeVersion: 1,
		position,
		credentials: { partnerLeadsApi: credential },
		parameters,
	};
}

/**
 * POST {leads: [...]} to `/webhook/<path>` → one lead created per entry (standard, picklist and
 * custom fields from the entry), then each fetched back; the webhook answers with the fetched leads
 * (or, with `onReceived`, as soon as n8n has taken the call).
 */
export function createAndGetLeadsWorkflow(
	credential: CredentialRef,
	ids: { partnerOrganizationId: string; agentId: string },
	answer: WebhookAnswer = 'lastNode',
): { workflow: WorkflowDefinition; webhookPath: string } {
	const webhookPath = `e2e-leads-${randomUUID()}`;
	const nodes = [
		webhookStartNode(webhookPath, NODE.webhook, answer),
		{
			id: randomUUID(),
			name: NODE.split,
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [220, 0],
			parameters: { fieldToSplitOut: 'body.leads', include: 'noOtherFields', options: {} },
		},
		actionNode(NODE.create, [440, 0], credential, {
			resource: 'lead',
			operation: 'create',
			// plain strings, as workflows saved before these became resource locators hold them
			partnerOrganizationId: ids.partnerOrganizationId,
			agentId: ids.agentId,
			leadFields: {
				mappingMode: 'defineBelow',
				value: {
					firstName: '={{ $json.firstName }}',
					lastName: '={{ $json.lastName }}',
					email: '={{ $json.email }}',
					platform: '={{ $json.platform }}',
					industry: '={{ $json.industry }}',
					employeeCount: '={{ $json.employeeCount }}',
				},
				matchingColumns: [],
				schema: [],
			},
		}),
		actionNode(NODE.get, [660, 0], credential, {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			// the scenario checks every stored field, custom ones included
			simplify: false,
		}),
	];
	return {
		workflow: {
			name: `e2e create and get leads ${webhookPath.slice(-8)}`,
			nodes,
			connections: connect(NODE.webhook, NODE.split, NODE.create, NODE.get),
			settings: SETTINGS,
		},
		webhookPath,
	};
}

/** The Partner Referral Service Trigger as a workflow node, listening under `webhookId`. */
export function leadTriggerNode(
	credential: CredentialRef,
	webhookId: string,
	parameters: Record<string, unknown>,
) {
	return {
		id: randomUUID(),
		name: NODE.trigger,
		type: TRIGGER_NODE_TYPE,
		typeVersion: TRIGGER_NODE_VERSION,
		position: [0, 0],
		webhookId,
		credentials: { partnerLeadsApi: credential },
		parameters,
	};
}

/** The trigger alone, on every lead topic, fetching the full lead. */
export function leadTriggerWorkflow(
	credential: CredentialRef,
	parameters: Record<string, unknown> = {
		events: ['lead/create', 'lead/update', 'lead/delete'],
		fetchFullLead: true,
	},
): {
	workflow: WorkflowDefinition;
	webhookId: string;
} {
	const webhookId = randomUUID();
	return {
		workflow: {
			name: `e2e lead trigger ${webhookId.slice(0, 8)}`,
			nodes: [leadTriggerNode(credential, webhookId, parameters)],
			connections: {},
			settings: SETTINGS,
		},
		webhookId,
	};
}

/** POST anything to `/webhook/<path>` → Lead Schema > Get with the given credential; answers with the schema. */
export function schemaWorkflow(credential: CredentialRef): {
	workflow: WorkflowDefinition;
	webhookPath: string;
} {
	const webhookPath = `e2e-schema-${randomUUID()}`;
	const nodes = [
		webhookStartNode(webhookPath),
		actionNode(NODE.schema, [200, 0], credential, { resource: 'leadSchema', operation: 'get' }),
	];
	return {
		workflow: {
			name: `e2e schema ${webhookPath.slice(-8)}`,
			nodes,
			connections: connect(NODE.webhook, NODE.schema),
			settings: SETTINGS,
		},
		webhookPath,
	};
}

/**
 * POST {returnAll, limit, email, firstName} to `/webhook/<path>` → Lead > Get Many (Return All or
 * Limit, whole leads) and, beside it, Lead > Create or Update matched on the e-mail.
 */
export function listAndUpsertWorkflow(
	credential: CredentialRef,
	ids: { partnerOrganizationId: string; agentId: string },
): { workflow: WorkflowDefinition; webhookPath: string } {
	const webhookPath = `e2e-list-${randomUUID()}`;
	const nodes = [
		webhookStartNode(webhookPath),
		actionNode(NODE.getMany, [220, 0], credential, {
			resource: 'lead',
			operation: 'getMany',
			returnAll: '={{ $json.body.returnAll }}',
			limit: '={{ $json.body.limit }}',
			simplify: false,
		}),
		actionNode(NODE.upsert, [220, 200], credential, {
			resource: 'lead',
			operation: 'upsert',
			matchField: 'email',
			partnerOrganizationId: ids.partnerOrganizationId,
			agentId: ids.agentId,
			leadFields: {
				mappingMode: 'defineBelow',
				value: {
					firstName: '={{ $json.body.firstName }}',
					lastName: 'Upserted',
					email: '={{ $json.body.email }}',
				},
				matchingColumns: [],
				schema: [],
			},
		}),
	];
	const connections = {
		[NODE.webhook]: {
			main: [
				[
					{ node: NODE.getMany, type: 'main', index: 0 },
					{ node: NODE.upsert, type: 'main', index: 0 },
				],
			],
		},
	};
	return {
		workflow: {
			name: `e2e list and upsert ${webhookPath.slice(-8)}`,
			nodes,
			connections,
			settings: SETTINGS,
		},
		webhookPath,
	};
}
