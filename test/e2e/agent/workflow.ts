/**
 * The agent workflow of the agent scenarios, as a user builds it in the editor: a Webhook starts
 * n8n's AI Agent; its OpenAI Chat Model points at the scripted model on loopback (the OpenAI
 * credential's base URL); Simple Memory keeps the conversation; our node is the agent's tool
 * three times (Create, Get and Update a lead), the model filling the parameters marked with
 * `$fromAI`, as the editor's "let the model define this parameter" button writes them.
 */
import { randomUUID } from 'node:crypto';

import {
	PACKAGE_NAME,
	webhookStartNode,
	type CredentialRef,
	type WorkflowDefinition,
} from '../workflows';

export const AGENT_TOOL_NODE_TYPE = `${PACKAGE_NAME}.partnerLeadsTool`;

export const AGENT_NODE = {
	agent: 'AI Agent',
	model: 'OpenAI Chat Model',
	memory: 'Simple Memory',
	create: 'Create Lead',
	get: 'Get Lead',
	update: 'Update Lead',
} as const;

/** `$fromAI(key, description, type)` as the editor writes it into a parameter. */
export function fromAI(key: string, description: string, type = 'string'): string {
	return `={{ $fromAI('${key}', \`${description}\`, '${type}') }}`;
}

function mapper(value: Record<string, string>) {
	return { mappingMode: 'defineBelow', value, matchingColumns: [], schema: [] };
}

const LEAD_ID = fromAI(
	'leadId',
	'The ID of the lead, as Create returned it (e.g. 65f0c2a1d3e4f5a6b7c8d9e0)',
);

function toolNode(
	name: string,
	position: [number, number],
	credential: CredentialRef,
	parameters: Record<string, unknown>,
) {
	return {
		id: randomUUID(),
		name,
		type: AGENT_TOOL_NODE_TYPE,
		typeVersion: 1,
		position,
		credentials: { partnerLeadsApi: credential },
		parameters,
	};
}

export interface AgentWorkflowOptions {
	credential: CredentialRef;
	openAiCredential: CredentialRef;
	ids: { partnerOrganizationId: string; agentId: string };
	agentVersion: number;
}

export function agentWorkflow(options: AgentWorkflowOptions): {
	workflow: WorkflowDefinition;
	webhookPath: string;
} {
	const { credential, ids } = options;
	const webhookPath = `e2e-agent-${randomUUID()}`;
	const nodes = [
		webhookStartNode(webhookPath),
		{
			id: randomUUID(),
			name: AGENT_NODE.agent,
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: options.agentVersion,
			position: [220, 0],
			parameters: {
				promptType: 'define',
				text: '={{ $json.body.prompt }}',
				options: {
					systemMessage:
						'You push leads from e-mails and chats into the partner portal with your tools.',
				},
			},
		},
		{
			id: randomUUID(),
			name: AGENT_NODE.model,
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			// 1.2: the Chat Completions API on both lines (1.3 defaults to the Responses API)
			typeVersion: 1.2,
			position: [100, 220],
			credentials: { openAiApi: options.openAiCredential },
			parameters: { model: { __rl: true, mode: 'id', value: 'scripted-model' }, options: {} },
		},
		{
			id: randomUUID(),
			name: AGENT_NODE.memory,
			type: '@n8n/n8n-nodes-langchain.memoryBufferWindow',
			typeVersion: 1.3,
			position: [240, 220],
			parameters: {
				sessionIdType: 'customKey',
				sessionKey: '={{ $json.body.session }}',
				contextWindowLength: 20,
			},
		},
		toolNode(AGENT_NODE.create, [380, 220], credential, {
			resource: 'lead',
			operation: 'create',
			partnerOrganizationId: { __rl: true, mode: 'id', value: ids.partnerOrganizationId },
			agentId: { __rl: true, mode: 'id', value: ids.agentId },
			leadFields: mapper({
				firstName: fromAI('firstName', 'First name of the lead'),
				lastName: fromAI('lastName', 'Last name of the lead'),
				email: fromAI('email', 'E-mail address of the lead'),
				platform: fromAI(
					'platform',
					'The CRM the lead uses: HubSpot, Salesforce, Pipedrive or Other',
				),
				industry: fromAI('industry', "The lead's industry"),
				employeeCount: fromAI('employeeCount', 'Number of employees', 'number'),
			}),
		}),
		toolNode(AGENT_NODE.get, [520, 220], credential, {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: LEAD_ID },
		}),
		toolNode(AGENT_NODE.update, [660, 220], credential, {
			resource: 'lead',
			operation: 'update',
			leadId: { __rl: true, mode: 'id', value: LEAD_ID },
			leadFields: mapper({ value: fromAI('dealValue', 'The new deal value in USD', 'number') }),
		}),
	];
	const toAgent = (type: string) => ({ [type]: [[{ node: AGENT_NODE.agent, type, index: 0 }]] });
	return {
		workflow: {
			name: `e2e agent ${webhookPath.slice(-8)}`,
			nodes,
			connections: {
				Webhook: { main: [[{ node: AGENT_NODE.agent, type: 'main', index: 0 }]] },
				[AGENT_NODE.model]: toAgent('ai_languageModel'),
				[AGENT_NODE.memory]: toAgent('ai_memory'),
				[AGENT_NODE.create]: toAgent('ai_tool'),
				[AGENT_NODE.get]: toAgent('ai_tool'),
				[AGENT_NODE.update]: toAgent('ai_tool'),
			},
			settings: {
				executionOrder: 'v1',
				saveDataSuccessExecution: 'all',
				saveDataErrorExecution: 'all',
			},
		},
		webhookPath,
	};
}
