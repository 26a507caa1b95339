/**
 * The workflows the real-app bench measures. Each starts from a production Webhook that
 * answers at once (`onReceived`), so the bench reads the time from n8n's own execution data,
 * not from the HTTP answer.
 */
import { randomUUID } from 'node:crypto';

import {
	ACTION_NODE_TYPE,
	PACKAGE_NAME,
	TRIGGER_NODE_TYPE,
	TRIGGER_NODE_VERSION,
	type CredentialRef,
} from '../../test/e2e/workflows';
import { FLOOR_CREATE_TYPE, FLOOR_TRIGGER_TYPE } from './floor-package';

/** The node whose execution time is measured, in every workflow. */
export const MEASURED = 'Measured';

export interface BenchWorkflow {
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings: Record<string, unknown>;
}

const SETTINGS = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'all',
	saveDataErrorExecution: 'all',
};

/** n8n's Webhook node on POST `path`, answering on receipt unless told otherwise. */
export function webhook(
	path: string,
	responseMode: 'onReceived' | 'lastNode' = 'onReceived',
): Record<string, unknown> {
	return {
		id: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode, options: {} },
	};
}

const SPLIT = {
	name: 'Split Leads',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	position: [220, 0],
	parameters: { fieldToSplitOut: 'body.leads', include: 'noOtherFields', options: {} },
};

function chain(names: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let index = 0; index + 1 < names.length; index++)
		connections[names[index]] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	return connections;
}

/** Webhook → (Split Out →) the measured node. */
function startedByWebhook(
	label: string,
	measured: Record<string, unknown>,
	split: boolean,
): { workflow: BenchWorkflow; path: string } {
	const path = `bench-${label}-${randomUUID().slice(0, 8)}`;
	const nodes = [webhook(path), ...(split ? [{ id: randomUUID(), ...SPLIT }] : [])];
	nodes.push({ id: randomUUID(), name: MEASURED, position: [440, 0], ...measured });
	return {
		workflow: {
			name: `bench ${label}`,
			nodes,
			connections: chain(nodes.map((node) => String(node.name))),
			settings: SETTINGS,
		},
		path,
	};
}

/**
 * Lead > Create with our node: its default settings, or Parallel Requests pinned. Lead Fields map the
 * items automatically (their keys are the field ids, the credit fields included), so no
 * expression is evaluated per item: like the minimal node, which sends the item as it is.
 */
export function oursCreate(credential: CredentialRef, parallelRequests?: number) {
	return startedByWebhook(
		`ours-create-${parallelRequests ?? 'default'}`,
		{
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			credentials: { partnerLeadsApi: credential },
			parameters: {
				resource: 'lead',
				operation: 'create',
				partnerOrganizationId: { __rl: true, mode: 'id', value: '' },
				agentId: { __rl: true, mode: 'id', value: '' },
				leadFields: {
					mappingMode: 'autoMapInputData',
					value: {},
					matchingColumns: [],
					schema: [],
				},
				options: parallelRequests === undefined ? {} : { parallelRequests },
			},
		},
		true,
	);
}

/**
 * The same POSTs with n8n's HTTP Request node and our credential (what a user would pick
 * instead). It sends every item's request at once: its Batching option only adds pauses
 * between batches, it never waits for an answer before the next request.
 */
export function httpRequestCreate(credential: CredentialRef, leadsUrl: string) {
	return startedByWebhook(
		'http-request-create',
		{
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			credentials: { partnerLeadsApi: credential },
			parameters: {
				method: 'POST',
				url: leadsUrl,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'partnerLeadsApi',
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify($json) }}',
				options: {},
			},
		},
		true,
	);
}

/** The same POSTs from a minimal node (n8n's floor). */
export function floorCreate(credential: CredentialRef, leadsUrl: string) {
	return startedByWebhook(
		'floor-create',
		{
			type: FLOOR_CREATE_TYPE,
			typeVersion: 1,
			credentials: { partnerLeadsApi: credential },
			parameters: { url: leadsUrl },
		},
		true,
	);
}

/** Lead > Get Many, Return All, raw leads. */
export function oursGetMany(credential: CredentialRef) {
	return startedByWebhook(
		'ours-get-many',
		{
			type: ACTION_NODE_TYPE,
			typeVersion: 1,
			credentials: { partnerLeadsApi: credential },
			parameters: { resource: 'lead', operation: 'getMany', returnAll: true, simplify: false },
		},
		false,
	);
}

/**
 * A workflow that is only a trigger: ours (by default Lead Created, Fetch Full Lead off) or the
 * floor.
 */
export function triggerOnly(
	kind: 'ours' | 'floor',
	credential: CredentialRef,
	secret = '',
	parameters: Record<string, unknown> = { events: ['lead/create'], fetchFullLead: false },
): { workflow: BenchWorkflow; webhookId: string } {
	const webhookId = randomUUID();
	const node =
		kind === 'ours'
			? {
					type: TRIGGER_NODE_TYPE,
					typeVersion: TRIGGER_NODE_VERSION,
					credentials: { partnerLeadsApi: credential },
					parameters: { options: {}, ...parameters },
				}
			: { type: FLOOR_TRIGGER_TYPE, typeVersion: 1, parameters: { secret } };
	return {
		workflow: {
			name: `bench trigger ${kind}`,
			nodes: [{ id: randomUUID(), name: MEASURED, position: [0, 0], webhookId, ...node }],
			connections: {},
			settings: SETTINGS,
		},
		webhookId,
	};
}

/** Poll Times of the polling bench: every minute at second 0, so the bench knows when each poll starts. */
export const POLL_CRON = '0 * * * * *';

/**
 * The Partner Referral Service Polling Trigger alone: all three events, Fetch Full Lead on,
 * List Requests per Minute high enough that every minute's poll reads the whole list (the
 * raw cost). n8n 2.41 refuses Poll Times more often than a minute (a cron whose seconds
 * field is not one fixed second); a fixed second is allowed.
 */
export function pollingTrigger(credential: CredentialRef): BenchWorkflow {
	return {
		name: `bench polling trigger ${randomUUID().slice(0, 8)}`,
		nodes: [
			{
				id: randomUUID(),
				name: MEASURED,
				type: `${PACKAGE_NAME}.partnerLeadsPollingTrigger`,
				typeVersion: 1,
				position: [0, 0],
				credentials: { partnerLeadsApi: credential },
				parameters: {
					pollTimes: { item: [{ mode: 'custom', cronExpression: POLL_CRON }] },
					events: ['lead/create', 'lead/update', 'lead/delete'],
					fetchFullLead: true,
					options: { listRequestsPerMinute: 1_000_000 },
				},
			},
		],
		connections: {},
		settings: SETTINGS,
	};
}
