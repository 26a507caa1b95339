import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	INode,
	INodeCredentialTestResult,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';

import { CREDENTIAL_TYPE } from './harness';
import type { N8nHarness } from './harness';
import { PackageNodeTypes, packageCredentialTypes, PACKAGE } from './node-types';

/** The stand-in base node n8n's credential tester builds its request node from. */
const noOpDescription: INodeType['description'] = {
	displayName: 'No Operation',
	name: 'n8n-nodes-base.noOp',
	group: ['organization'],
	version: 1,
	description: 'No operation',
	defaults: { name: 'No Operation' },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	properties: [],
};

/**
 * Runs a credential's `test` request the way n8n's "Test" button does
 * (packages/cli/src/services/credentials-tester.service.ts): a temporary no-op node whose
 * only parameter routes the test request, executed by n8n-core's RoutingNode, then the
 * same status-code rules and fallbacks to turn a failure into the message the user sees.
 */
export async function testCredential(
	harness: N8nHarness,
	data: ICredentialDataDecryptedObject,
	id = 'credential-under-test',
): Promise<INodeCredentialTestResult> {
	const credentialType = packageCredentialTypes().get(CREDENTIAL_TYPE)!;
	const testRequest = credentialType.test;
	const details = harness.saveCredential(id, data);
	if (!testRequest)
		return await testedByNode(harness, { id, name: details.name, type: CREDENTIAL_TYPE, data });
	const nodeType: INodeType = {
		description: {
			...noOpDescription,
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: (): INodeType | IVersionedNodeType => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [CREDENTIAL_TYPE]: details },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const workflowNode = workflow.getNode(node.name)!;
	workflowNode.parameters =
		NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			workflowNode.parameters,
			true,
			false,
			workflowNode,
			nodeType.description,
		) ?? {};
	const credentialsDecrypted: ICredentialsDecrypted = {
		id,
		name: details.name,
		type: CREDENTIAL_TYPE,
		data: await harness.credentialsHelper.getDecrypted(
			harness.additionalData(),
			details,
			CREDENTIAL_TYPE,
		),
	};
	const context = new ExecuteContext(
		workflow,
		workflowNode,
		harness.additionalData(),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node: workflowNode, data: {}, source: null },
		[],
	);
	try {
		await new RoutingNode(context, nodeType, credentialsDecrypted).runNode();
	} catch (thrown) {
		const error = thrown as {
			message: string;
			cause?: { response?: { status: number; statusText?: string }; code?: string };
		};
		if (error.cause?.response) {
			const { status, statusText } = error.cause.response;
			const rule = testRequest.rules?.find(
				(candidate) => candidate.type === 'responseCode' && candidate.properties.value === status,
			);
			if (rule && rule.type === 'responseCode')
				return { status: 'Error', message: rule.properties.message };
			return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		}
		if (error.cause?.code) return { status: 'Error', message: error.cause.code };
		return { status: 'Error', message: String(error.message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/**
 * A credential without a test request is tested by the function a node names in `testedBy`,
 * called as n8n's credentials tester does: with n8n-core's CredentialTestContext.
 */
async function testedByNode(
	harness: N8nHarness,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const nodeTypes = new PackageNodeTypes();
	for (const name of [`${PACKAGE}.partnerLeads`, `${PACKAGE}.partnerLeadsTrigger`]) {
		const nodeType = nodeTypes.getByNameAndVersion(name);
		const testedBy = nodeType.description.credentials?.find(
			(entry) => entry.name === CREDENTIAL_TYPE,
		)?.testedBy;
		if (typeof testedBy !== 'string') continue;
		const test = nodeType.methods?.credentialTest?.[testedBy];
		if (!test)
			throw new Error(`${name} names the credential test ${testedBy} but has no such method`);
		return await test.call(new CredentialTestContext(harness.additionalData()), credential);
	}
	throw new Error('No testing function found for this credential.');
}
