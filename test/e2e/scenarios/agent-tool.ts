/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The action node as an AI Agent's tool, in the real app: n8n's AI Agent with its OpenAI Chat
 * Model pointed at a scripted model on loopback (test/e2e/agent/scripted-chat-model.ts). The
 * model answers with tool calls chosen from the tools n8n sends it, then a final answer:
 * a prompt creates a lead with picklist and custom fields; a lead is got and updated by id;
 * a picklist value outside the schema comes back as an error the model reads and fixes on its
 * second call. No secret reaches the model, the agent's memory or the execution data.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import type { Simulator } from '../../simulator/types';
import {
	startScriptedChatModel,
	toolFor,
	toolResults,
	type ChatRequest,
	type ChatScript,
	type ScriptedChatModel,
} from '../agent/scripted-chat-model';
import { readExamples, withCredential } from '../../../scripts/dev/examples';
import { agentWorkflow } from '../agent/workflow';
import { executionError, waitForExecutions } from '../lib/execution-data';
import type { WorkflowSummary } from '../lib/n8n-rest';
import { log } from '../lib/report';
import { runThroughWebhook } from '../lib/run-workflow';
import type { Scenario, ScenarioContext } from './context';

const CREATE = 'Create a lead';
const GET = 'Get a lead';
const UPDATE = 'Update a lead';

/** Where the tools as the model saw them are written (one file per n8n version). */
export const AGENT_TOOLS_DIR = path.join(os.tmpdir(), 'partner-leads-e2e-agent-tools');

interface AgentSession {
	model: ScriptedChatModel;
	openAiCredential: { id: string; name: string };
	/** the agent workflows run, whose executions are searched for secrets */
	workflowIds: string[];
	workflow: WorkflowSummary;
	/** sends a prompt through the agent workflow; returns the agent's final answer */
	ask(prompt: string, script: ChatScript): Promise<string>;
}

/** The lead id in a tool result (the node's output as JSON), if any. */
function leadIdIn(result: string | undefined): string | undefined {
	return /"id":"([^"]+)"/.exec(result ?? '')?.[1];
}

async function startAgent(context: ScenarioContext): Promise<AgentSession> {
	const { rest, sim, credential } = context;
	const model = await startScriptedChatModel();
	const agentVersion = await rest.nodeTypeDefaultVersion('@n8n/n8n-nodes-langchain.agent');
	assert.ok(agentVersion, 'n8n lists no AI Agent node');
	const openAi = await rest.createCredential('Scripted model', 'openAiApi', {
		apiKey: 'sk-scripted-model-not-a-secret',
		url: model.baseUrl,
	});
	const { workflow, webhookPath } = agentWorkflow({
		credential,
		openAiCredential: { id: openAi.id, name: 'Scripted model' },
		ids: {
			partnerOrganizationId: sim.defaultPartnerOrganization.id,
			agentId: sim.defaultAgents[0]!.id,
		},
		agentVersion,
	});
	const created = await rest.createWorkflow(workflow);
	await rest.activateWorkflow(created);
	log(`AI Agent node version ${agentVersion}`);
	let runs = 0;
	const ask = async (prompt: string, script: ChatScript): Promise<string> => {
		model.script = script;
		runs += 1;
		const response = await runThroughWebhook(rest, webhookPath, { prompt, session: `s${runs}` });
		const [latest] = await waitForExecutions(rest, created.id, runs, 90_000);
		const execution = await rest.getExecution(latest!.id);
		assert.equal(
			execution.status,
			'success',
			`agent execution ${latest!.id} ended ${execution.status}: ${executionError(execution) ?? response.text.slice(0, 300)}`,
		);
		const answer = JSON.stringify(response.json);
		return answer;
	};
	return {
		model,
		openAiCredential: { id: openAi.id, name: 'Scripted model' },
		workflowIds: [created.id],
		workflow: created,
		ask,
	};
}

/** The tools as the model sees them: name, description, parameter JSON schema. */
function recordTools(version: string, request: ChatRequest): void {
	mkdirSync(AGENT_TOOLS_DIR, { recursive: true });
	const file = path.join(AGENT_TOOLS_DIR, `agent-tools-n8n-${version}.json`);
	writeFileSync(file, `${JSON.stringify(request.tools, null, 2)}\n`);
	log(`the tools as the model saw them: ${file}`);
}

function assertLeadFromPrompt(sim: Simulator, leadId: string | undefined): void {
	assert.ok(leadId, 'the tool result held no lead id');
	const stored = sim.control.getLead(leadId);
	assert.ok(stored, `lead ${leadId} is not in the service`);
	assert.equal(stored.firstName, 'Katherine');
	assert.equal(stored.lastName, 'Johnson');
	assert.equal(stored.email, 'katherine@example.com');
	assert.equal(stored.platform, 'salesforce', 'the picklist label the model sent became the value');
	assert.equal(stored.customFields.industry, 'fintech');
	assert.equal(Number(stored.customFields.employeeCount), 250);
}

const KATHERINE = {
	firstName: 'Katherine',
	lastName: 'Johnson',
	email: 'katherine@example.com',
	platform: 'Salesforce',
	employeeCount: 250,
};

/** Each step answers one request; the step is the number of tool results so far. */
function steps(...answers: Array<(request: ChatRequest) => ReturnType<ChatScript>>): ChatScript {
	return (request) => {
		const step = toolResults(request).length;
		const answer = answers[Math.min(step, answers.length - 1)]!;
		return answer(request);
	};
}

async function createFromPrompt(session: AgentSession, version: string, sim: Simulator) {
	const before = sim.control.listLeads().length;
	const answer = await session.ask(
		'New lead from an e-mail: Katherine Johnson <katherine@example.com>, fintech, 250 employees, uses Salesforce.',
		steps(
			(request) => {
				recordTools(version, request);
				return {
					toolCalls: [
						{
							name: toolFor(request, CREATE).name,
							arguments: { ...KATHERINE, industry: 'Fintech' },
						},
					],
				};
			},
			(request) => ({ text: `Created lead ${leadIdIn(toolResults(request)[0]) ?? '?'}.` }),
		),
	);
	const leadId = /Created lead ([^ .?"]+)/.exec(answer)?.[1];
	assertLeadFromPrompt(sim, leadId);
	assert.equal(sim.control.listLeads().length, before + 1, 'not exactly one lead was created');
	return leadId!;
}

async function getAndUpdate(session: AgentSession, sim: Simulator, leadId: string) {
	let fetched = '';
	const answer = await session.ask(
		`Lead ${leadId}: what is its e-mail address? Then set its deal value to 5000.`,
		steps(
			(request) => ({
				toolCalls: [{ name: toolFor(request, GET).name, arguments: { leadId } }],
			}),
			(request) => {
				fetched = toolResults(request)[0] ?? '';
				return {
					toolCalls: [
						{ name: toolFor(request, UPDATE).name, arguments: { leadId, dealValue: 5000 } },
					],
				};
			},
			(request) => ({ text: `Done: ${toolResults(request).length} tool calls.` }),
		),
	);
	assert.match(fetched, /katherine@example\.com/, `Get returned: ${fetched.slice(0, 300)}`);
	assert.match(answer, /Done: 2 tool calls/);
	assert.equal(sim.control.getLead(leadId)?.value, 5000, 'the update did not reach the service');
}

async function picklistCorrected(session: AgentSession, sim: Simulator) {
	const before = sim.control.listLeads().length;
	let firstResult = '';
	// the create the model asks for, with the industry it believes in
	const createDorothy = (request: ChatRequest, industry: string) => ({
		toolCalls: [
			{
				name: toolFor(request, CREATE).name,
				arguments: {
					firstName: 'Dorothy',
					lastName: 'Vaughan',
					email: 'dorothy@example.com',
					platform: 'HubSpot',
					industry,
					employeeCount: 80,
				},
			},
		],
	});
	await session.ask(
		'New lead: Dorothy Vaughan <dorothy@example.com>, a bank, uses HubSpot, 80 employees.',
		steps(
			(request) => createDorothy(request, 'Banking'),
			(request) => {
				firstResult = toolResults(request)[0] ?? '';
				// the model corrects itself from the error alone: the first allowed value it lists
				const allowed = /must be one of: ([a-z]+)/.exec(firstResult)?.[1] ?? 'none-listed';
				return createDorothy(request, allowed);
			},
			(request) => ({ text: `Created lead ${leadIdIn(toolResults(request)[1]) ?? '?'}.` }),
		),
	);
	log(`the model's first tool result: ${firstResult}`);
	assert.match(
		firstResult,
		/Industry \(industry\) must be one of: saas.*fintech.*healthcare.*retail.*got \\?"Banking/,
		`the first tool result does not name the allowed values: ${firstResult.slice(0, 400)}`,
	);
	const created = sim.control.listLeads().slice(before);
	assert.equal(created.length, 1, `${created.length} leads were created`);
	assert.equal(created[0]!.email, 'dorothy@example.com');
	assert.equal(created[0]!.customFields.industry, 'saas');
}

const EXAMPLE_FILE = 'agent-lead-intake.json';

/**
 * examples/agent-lead-intake.json as a user imports it (credentials chosen, Partner Organization
 * and Agent filled) and chats with it: its public chat is switched on to reach it from here.
 */
async function exampleRuns(context: ScenarioContext, session: AgentSession): Promise<void> {
	const { rest, sim, credential } = context;
	const example = readExamples().find((candidate) => candidate.file === EXAMPLE_FILE);
	assert.ok(example, `examples/${EXAMPLE_FILE} is missing`);
	const ready = withCredential(example, credential);
	let webhookId = '';
	const nodes = ready.nodes.map((node) => {
		const parameters = { ...node.parameters };
		if (node.type === '@n8n/n8n-nodes-langchain.chatTrigger') {
			parameters.public = true;
			webhookId = String((node as { webhookId?: string }).webhookId);
		}
		if (parameters.operation === 'create') {
			parameters.partnerOrganizationId = {
				__rl: true,
				mode: 'id',
				value: sim.defaultPartnerOrganization.id,
			};
			parameters.agentId = { __rl: true, mode: 'id', value: sim.defaultAgents[0]!.id };
		}
		const credentials = node.credentials?.openAiApi
			? { ...node.credentials, openAiApi: session.openAiCredential }
			: node.credentials;
		return { ...node, parameters, ...(credentials ? { credentials } : {}) };
	});
	const stored = await rest.createWorkflow({
		name: ready.name,
		nodes,
		connections: ready.connections,
		settings: { ...ready.settings, saveDataSuccessExecution: 'all' },
	});
	await rest.activateWorkflow(stored);
	session.workflowIds.push(stored.id);
	try {
		session.model.script = steps(
			(request) => {
				recordTools(`${context.n8n.version}-example`, request);
				return {
					toolCalls: [
						{
							name: toolFor(request, 'Creates a lead').name,
							arguments: {
								firstName: 'Mary',
								lastName: 'Jackson',
								email: 'mary@example.com',
								companyName: 'Langley Research',
								platform: 'Pipedrive',
								notes: 'Wants the partner program brochure.',
							},
						},
					],
				};
			},
			(request) => ({ text: `Created lead ${leadIdIn(toolResults(request)[0]) ?? '?'}.` }),
		);
		const response = await runThroughWebhook(rest, `${webhookId}/chat`, {
			action: 'sendMessage',
			sessionId: 'example-session',
			chatInput: 'New lead: Mary Jackson <mary@example.com> of Langley Research, uses Pipedrive.',
		});
		const leadId = /Created lead ([^ .?"]+)/.exec(response.text)?.[1];
		assert.ok(
			leadId,
			`the example's chat answered ${response.status}: ${response.text.slice(0, 300)}`,
		);
		const lead = sim.control.getLead(leadId);
		assert.equal(lead?.email, 'mary@example.com');
		assert.equal(lead?.platform, 'pipedrive');
		assert.equal(lead?.companyName, 'Langley Research');
	} finally {
		await rest.deactivateWorkflow(stored).catch(() => undefined);
	}
}

/** Where each live secret shows up (names only, never the values). */
async function secretLeaks(context: ScenarioContext, session: AgentSession): Promise<string[]> {
	const { sim, rest, n8n } = context;
	const secrets = new Map<string, string>([['client secret', sim.defaultKey.clientSecret]]);
	for (const [index, token] of sim.control.issuedTokens().entries())
		secrets.set(`access token #${index + 1}`, token);
	for (const subscription of sim.control.listSubscriptions())
		secrets.set(`signing secret of ${subscription.id}`, subscription.signingSecret);
	const places = new Map<string, string>();
	session.model.rawRequests.forEach((body, index) =>
		places.set(`request #${index + 1} to the model`, body),
	);
	for (const workflowId of session.workflowIds)
		for (const summary of await rest.listExecutions(workflowId))
			places.set(`execution ${summary.id}`, JSON.stringify(await rest.getExecution(summary.id)));
	places.set("n8n's log", await readFile(n8n.logFile, 'utf8'));
	const found: string[] = [];
	for (const [name, value] of secrets)
		for (const [place, text] of places) if (text.includes(value)) found.push(`${name} in ${place}`);
	return found;
}

export const agentTool: Scenario = {
	name: "AI Agent with the node as its tool (scripted model on loopback): creates a lead from a prompt, gets and updates it by id, corrects a picklist value from the tool's error, runs the agent example; no secret reaches the model or the executions",
	async run(context) {
		const { rest, sim, n8n } = context;
		const session = await startAgent(context);
		try {
			const leadId = await createFromPrompt(session, n8n.version, sim);
			await getAndUpdate(session, sim, leadId);
			await picklistCorrected(session, sim);
			await exampleRuns(context, session);
			assert.ok(sim.control.issuedTokens().length >= 1, 'no access token was issued');
			const found = await secretLeaks(context, session);
			assert.deepEqual(found, [], `live secrets found: ${found.join('; ')}`);
			log(`the scripted model got ${session.model.requests.length} requests`);
		} finally {
			await rest.deactivateWorkflow(session.workflow).catch(() => undefined);
			await session.model.close();
		}
	},
};
