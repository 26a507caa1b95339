import type {
	ICredentialDataDecryptedObject,
	IConnections,
	IDataObject,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	IRun,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';

import type { Simulator } from '../simulator/types';
import { ownKey, simulatorCredentialData } from './simulator-credential';

export { ownKey, simulatorCredentialData };
import { additionalDataFor } from './additional-data';
import { InMemoryCredentialsHelper } from './credentials-helper';
import { PACKAGE, PackageNodeTypes, packageCredentialTypes } from './node-types';

export const CREDENTIAL_TYPE = 'partnerLeadsApi';
export const ACTION_NODE_TYPE = `${PACKAGE}.partnerLeads`;
/** the action node as an AI Agent's tool (n8n derives it from `usableAsTool`) */
export const ACTION_TOOL_NODE_TYPE = `${PACKAGE}.partnerLeadsTool`;
export const TRIGGER_NODE_TYPE = `${PACKAGE}.partnerLeadsTrigger`;

export interface NodeRun {
	/** the node's output items on its first output */
	items: INodeExecutionData[];
	/** all outputs of the node */
	outputs: INodeExecutionData[][];
	/** the error the node's run ended with, if any */
	error?: { message: string; description?: string | null; [key: string]: unknown };
	run: IRun;
}

/** Numbers each harness's default credential. */
let harnessCount = 0;

/**
 * Runs our nodes inside n8n's real execution engine (n8n-core's WorkflowExecute), with a
 * credential store that behaves like n8n's, against a simulator over loopback HTTP.
 */
export class N8nHarness {
	readonly nodeTypes = new PackageNodeTypes();

	readonly credentialsHelper = new InMemoryCredentialsHelper(packageCredentialTypes());

	/** the stored credential every node of a workflow uses unless told otherwise */
	readonly credential: INodeCredentialsDetails;

	constructor(sim: Simulator, overrides: ICredentialDataDecryptedObject = {}) {
		// A credential of its own per harness: what n8n keeps per credential (the editor's
		// schema cache) starts empty for each harness, as it would for a new credential.
		this.credential = this.saveCredential(
			`default-${++harnessCount}`,
			simulatorCredentialData(sim, overrides),
		);
	}

	saveCredential(id: string, data: ICredentialDataDecryptedObject): INodeCredentialsDetails {
		return this.credentialsHelper.save(id, CREDENTIAL_TYPE, data);
	}

	/** The user edits the default credential: same id, new data. */
	replaceCredential(data: ICredentialDataDecryptedObject): INodeCredentialsDetails {
		return this.saveCredential(this.defaultCredentialId(), data);
	}

	storedCredential(id = this.defaultCredentialId()): ICredentialDataDecryptedObject | undefined {
		return this.credentialsHelper.stored(id, CREDENTIAL_TYPE);
	}

	private defaultCredentialId(): string {
		return this.credential.id ?? '';
	}

	workflow(nodes: INode[], connections: IConnections, staticData?: IDataObject): Workflow {
		return new Workflow({
			id: 'test-workflow',
			name: 'Test workflow',
			nodes,
			connections,
			active: false,
			nodeTypes: this.nodeTypes,
			staticData,
		});
	}

	additionalData(hooks?: ExecutionLifecycleHooks, webhookBaseUrl?: string) {
		return additionalDataFor(this.credentialsHelper, hooks, webhookBaseUrl);
	}

	/** Runs a whole workflow from `startNodeName` with `startItems`, the way n8n runs a triggered execution. */
	async runWorkflow(
		workflow: Workflow,
		startNodeName: string,
		startItems: INodeExecutionData[] = [{ json: {} }],
		mode: WorkflowExecuteMode = 'manual',
	): Promise<IRun> {
		const hooks = new ExecutionLifecycleHooks(mode, 'test-execution', {
			id: workflow.id,
			name: workflow.name ?? 'test',
			nodes: Object.values(workflow.nodes),
			connections: workflow.connectionsBySourceNode,
			active: false,
			activeVersionId: null,
			isArchived: false,
			createdAt: new Date(),
			updatedAt: new Date(),
		});
		let resolveFinished: (run: IRun) => void = () => {};
		const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
		hooks.addHandler('workflowExecuteAfter', (fullRunData) => resolveFinished(fullRunData));
		const startNode = workflow.getNode(startNodeName);
		if (!startNode) throw new Error(`No node ${startNodeName}`);
		const runExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node: startNode, data: { main: [startItems] }, source: null }],
			},
		});
		const execute = new WorkflowExecute(this.additionalData(hooks), mode, runExecutionData);
		await execute.processRunExecutionData(workflow);
		return await finished;
	}

	/**
	 * Runs `[Test Items] → [node]` and returns what the node produced. `items` are the input
	 * items; `parameters` the node's parameters as n8n would store them.
	 */
	async runNode(options: {
		type?: string;
		parameters: INode['parameters'];
		items?: IDataObject[];
		continueOnFail?: boolean;
		credential?: INodeCredentialsDetails;
		typeVersion?: number;
	}): Promise<NodeRun> {
		const nodeName = 'Node Under Test';
		const nodes: INode[] = [
			{
				id: 'items',
				name: 'Items',
				type: 'test.testItems',
				typeVersion: 1,
				position: [0, 0],
				parameters: { items: JSON.stringify(options.items ?? [{}]) },
			},
			{
				id: 'under-test',
				name: nodeName,
				type: options.type ?? ACTION_NODE_TYPE,
				typeVersion: options.typeVersion ?? 1,
				position: [200, 0],
				parameters: options.parameters,
				credentials: { [CREDENTIAL_TYPE]: options.credential ?? this.credential },
				...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			},
		];
		const connections: IConnections = {
			Items: { main: [[{ node: nodeName, type: 'main', index: 0 }]] },
		};
		const workflow = this.workflow(nodes, connections);
		const run = await this.runWorkflow(workflow, 'Items');
		const taskData = run.data.resultData.runData[nodeName]?.[0];
		const outputs = (taskData?.data?.main ?? []).map((output) => output ?? []);
		const error = (taskData?.error ?? run.data.resultData.error) as NodeRun['error'];
		return { items: outputs[0] ?? [], outputs, error, run };
	}
}
