/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A scripted, OpenAI-compatible chat-completions server on loopback: the "model" behind n8n's
 * OpenAI Chat Model in the agent scenarios. No network, no real model: a script decides each
 * answer from the request (the tools n8n sends, the conversation so far). Every request body is
 * recorded as received, so a scenario can check what reached the model.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';

export interface ChatTool {
	name: string;
	description: string;
	/** the JSON schema of the tool's arguments, as n8n sends it */
	parameters: Record<string, unknown>;
}

export interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools: ChatTool[];
	stream: boolean;
}

/** What the model answers: tool calls, or a final text. */
export type ChatReply =
	| { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
	| { text: string };

export type ChatScript = (request: ChatRequest) => ChatReply;

export interface ScriptedChatModel {
	/** the base URL n8n's OpenAI credential points at (…/v1) */
	baseUrl: string;
	/** every request body, raw, in order */
	readonly rawRequests: string[];
	readonly requests: ChatRequest[];
	/** the script that answers the next requests */
	script: ChatScript;
	close(): Promise<void>;
}

function parseRequest(text: string): ChatRequest {
	const body = JSON.parse(text) as {
		model?: string;
		messages?: ChatMessage[];
		tools?: Array<{ function?: ChatTool }>;
		stream?: boolean;
	};
	return {
		model: body.model ?? '',
		messages: body.messages ?? [],
		tools: (body.tools ?? []).flatMap((tool) => (tool.function ? [tool.function] : [])),
		stream: body.stream === true,
	};
}

function completion(request: ChatRequest, reply: ChatReply) {
	const message =
		'text' in reply
			? { role: 'assistant', content: reply.text }
			: {
					role: 'assistant',
					content: null,
					tool_calls: reply.toolCalls.map((call) => ({
						id: `call_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
						type: 'function',
						function: { name: call.name, arguments: JSON.stringify(call.arguments) },
					})),
				};
	return {
		id: `chatcmpl-${randomUUID()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [{ index: 0, message, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same answer as server-sent chunks, for a client that asked to stream. */
function streamChunks(answer: ReturnType<typeof completion>): string {
	const choice = answer.choices[0]!;
	const message = choice.message as Record<string, unknown>;
	const base = {
		id: answer.id,
		object: 'chat.completion.chunk',
		created: answer.created,
		model: answer.model,
	};
	const delta: Record<string, unknown> = { role: 'assistant', content: message.content ?? '' };
	if (Array.isArray(message.tool_calls))
		delta.tool_calls = message.tool_calls.map((call, index) => ({ index, ...(call as object) }));
	const chunks = [
		{ ...base, choices: [{ index: 0, delta, finish_reason: null }] },
		{
			...base,
			choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }],
			usage: answer.usage,
		},
	];
	return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
}

export async function startScriptedChatModel(): Promise<ScriptedChatModel> {
	const model: Omit<ScriptedChatModel, 'baseUrl' | 'close'> = {
		rawRequests: [],
		requests: [],
		script: () => ({ text: 'No script set.' }),
	};
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			model.rawRequests.push(text);
			if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
				response.writeHead(404, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ error: { message: `no route ${request.url ?? ''}` } }));
				return;
			}
			try {
				const parsed = parseRequest(text);
				model.requests.push(parsed);
				const answer = completion(parsed, model.script(parsed));
				if (parsed.stream) {
					response.writeHead(200, { 'content-type': 'text/event-stream' });
					response.end(streamChunks(answer));
				} else {
					response.writeHead(200, { 'content-type': 'application/json' });
					response.end(JSON.stringify(answer));
				}
			} catch (error) {
				response.writeHead(500, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ error: { message: String(error) } }));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	return Object.assign(model, {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	});
}

/** The messages with the tools' results (role "tool"), in order. */
export function toolResults(request: ChatRequest): string[] {
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) =>
			typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
		);
}

/**
 * The operation an automatic tool description names on n8n 1.82 (the floor), which describes a
 * tool by its node's description, then "Resource: lead" and "Operation: create"; later lines say
 * "Create a lead in Partner Referral Service".
 */
const OPERATION_OF_ACTION: Record<string, string> = {
	'Create a lead': 'create',
	'Get a lead': 'get',
	'Update a lead': 'update',
};

/** The tool whose description says it does `action` (e.g. "Create a lead"); fails clearly if none. */
export function toolFor(request: ChatRequest, action: string): ChatTool {
	const operation = OPERATION_OF_ACTION[action];
	const tool =
		request.tools.find((candidate) => candidate.description.includes(action)) ??
		request.tools.find(
			(candidate) =>
				operation !== undefined &&
				new RegExp(`Resource: lead\\s+Operation: ${operation}\\b`).test(candidate.description),
		);
	if (!tool) {
		const offered = request.tools.map((candidate) => `${candidate.name}: ${candidate.description}`);
		throw new Error(`no tool does "${action}"; offered: ${offered.join(' | ')}`);
	}
	return tool;
}
