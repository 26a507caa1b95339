import type { IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { ExecutionLifecycleHooks } from 'n8n-core';

import type { InMemoryCredentialsHelper } from './credentials-helper';

/**
 * What the n8n application hands to the engine for every execution (in n8n this is
 * `WorkflowExecuteAdditionalData.getBase`). Only the credential store differs: ours is in
 * memory. Anything a node of ours must never call throws, so a test notices.
 */
export function additionalDataFor(
	credentialsHelper: InMemoryCredentialsHelper,
	hooks = new ExecutionLifecycleHooks('manual', 'test-execution', {
		id: 'test-workflow',
		name: 'test',
		nodes: [],
		connections: {},
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	}),
	webhookBaseUrl = 'https://n8n.example.test/',
): IWorkflowExecuteAdditionalData {
	const unsupported = (what: string) => () => {
		throw new Error(`The test host does not support ${what}`);
	};
	return {
		credentialsHelper,
		hooks,
		executeWorkflow: unsupported('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'https://n8n.example.test/rest',
		instanceBaseUrl: 'https://n8n.example.test/',
		formBaseUrl: 'https://n8n.example.test/form',
		formWaitingBaseUrl: 'https://n8n.example.test/form-waiting',
		formTestBaseUrl: 'https://n8n.example.test/form-test',
		webhookBaseUrl: `${webhookBaseUrl.replace(/\/$/, '')}/webhook`,
		webhookWaitingBaseUrl: `${webhookBaseUrl.replace(/\/$/, '')}/webhook-waiting`,
		webhookTestBaseUrl: `${webhookBaseUrl.replace(/\/$/, '')}/webhook-test`,
		mcpBaseUrl: 'https://n8n.example.test/mcp',
		mcpTestBaseUrl: 'https://n8n.example.test/mcp-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: unsupported('code runner tasks'),
	} as unknown as IWorkflowExecuteAdditionalData;
}
