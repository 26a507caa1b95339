/**
 * n8n's internal REST API (the one its editor uses), with a cookie session.
 * Shapes read from the installed sources (n8n/dist/controllers, credentials/, workflows/,
 * executions/ and @n8n/api-types) of 1.123.81 and 2.40.7; the differences are marked.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import { parseFlatted } from './flatted';
import { httpRequest, isRecord, type HttpResponse } from './http';
import { pollUntil } from './wait';

export class N8nRestError extends Error {
	constructor(
		readonly method: string,
		readonly path: string,
		readonly status: number,
		readonly body: string,
	) {
		super(`${method} ${path} answered ${status}: ${body.slice(0, 500)}`);
	}
}

export interface WorkflowSummary {
	id: string;
	versionId?: string;
	active: boolean;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	workflowId: string;
	/** when n8n started running it (ISO 8601, milliseconds) */
	startedAt?: string;
	/** when it ended */
	stoppedAt?: string;
}

export interface ExecutionDetail extends ExecutionSummary {
	/** `data` of the execution (an IRunExecutionData), parsed from n8n's flatted form */
	data: Record<string, unknown>;
}

export interface CredentialTestResult {
	status: string;
	message: string;
}

/** What `call` answers for a route this n8n line does not have (404), where another route is tried. */
const NO_ROUTE = Symbol('no such route');

export class N8nRest {
	private cookie = '';

	/** n8n binds the session cookie to this header's value (browserId check) */
	private readonly browserId = randomUUID();

	constructor(readonly baseUrl: string) {}

	/** `POST /rest/owner/setup`: the first user of a new instance; also issues the session cookie. */
	async setupOwner(owner: {
		email: string;
		password: string;
		firstName: string;
		lastName: string;
	}): Promise<void> {
		await this.call('POST', '/rest/owner/setup', owner);
	}

	/** A new instance's owner, named `<name> Owner`, with a fresh password; then logged in. */
	async setUpOwnerAndLogIn(name: string): Promise<{ email: string; password: string }> {
		const owner = {
			email: `${name.toLowerCase()}-owner@example.com`,
			password: `${name}-${randomBytes(9).toString('hex')}-Pw1`,
			firstName: name,
			lastName: 'Owner',
		};
		await this.setupOwner(owner);
		await this.login(owner.email, owner.password);
		return owner;
	}

	/**
	 * `POST /rest/login` {emailOrLdapLoginId, password}: the same LoginRequestDto from 1.82.3 to
	 * 2.x. Older lines (1.70.0) read {email, password} and answer "Email is required to log in".
	 */
	async login(email: string, password: string): Promise<void> {
		this.cookie = '';
		try {
			await this.call('POST', '/rest/login', { emailOrLdapLoginId: email, password });
		} catch (error) {
			const olderLine = error instanceof N8nRestError && error.body.includes('Email is required');
			if (!olderLine) {
				// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- test code: talks to n8n from outside, never shipped
				throw error;
			}
			await this.call('POST', '/rest/login', { email, password });
		}
		if (!this.cookie) throw new Error('login answered without a session cookie');
	}

	/** `GET /types/nodes.json` (needs the session): every node type description n8n loaded. */
	async nodeTypeNames(): Promise<string[]> {
		return namesOf(await this.call('GET', '/types/nodes.json', undefined, { raw: true }));
	}

	/** The newest version of a node type (its `defaultVersion`, else its highest), from `/types/nodes.json`. */
	async nodeTypeDefaultVersion(name: string): Promise<number | undefined> {
		const types = await this.call('GET', '/types/nodes.json', undefined, { raw: true });
		const descriptions = (Array.isArray(types) ? types : []).filter(
			(type): type is Record<string, unknown> => isRecord(type) && type.name === name,
		);
		const numbers = (values: unknown[]) =>
			values.flat().filter((version): version is number => typeof version === 'number');
		const defaults = numbers(descriptions.map((type) => type.defaultVersion));
		const versions =
			defaults.length > 0 ? defaults : numbers(descriptions.map((type) => type.version));
		return versions.length > 0 ? Math.max(...versions) : undefined;
	}

	/** `GET /types/credentials.json`: every credential type n8n loaded. */
	async credentialTypeNames(): Promise<string[]> {
		return namesOf(await this.call('GET', '/types/credentials.json', undefined, { raw: true }));
	}

	/** `POST /rest/credentials` {name, type, data} → the stored credential (data not returned). */
	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string }> {
		const created = await this.call('POST', '/rest/credentials', { name, type, data });
		return { id: stringField(created, 'id') };
	}

	/**
	 * `PATCH /rest/credentials/:id` {name, type, data}: the user saves new values into the credential
	 * (a new API key), as the editor's Save does; the same route on both lines.
	 */
	async updateCredential(
		id: string,
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<void> {
		await this.call('PATCH', `/rest/credentials/${id}`, { name, type, data });
	}

	/**
	 * `GET /rest/active-workflows/error/:id`: the activation error the editor shows on the workflow
	 * (both lines), or undefined when it has none.
	 */
	async activationError(workflowId: string): Promise<string | undefined> {
		const answer = await this.call('GET', `/rest/active-workflows/error/${workflowId}`);
		if (typeof answer === 'string' && answer !== '') return answer;
		return isRecord(answer) && typeof answer.message === 'string' ? answer.message : undefined;
	}

	/** `POST /rest/credentials/test` {credentials: {id, name, type, data}} → {status: 'OK' | 'Error', message}. */
	async testCredential(credential: {
		id: string;
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<CredentialTestResult> {
		const result = await this.call('POST', '/rest/credentials/test', { credentials: credential });
		return {
			status: stringField(result, 'status'),
			message: isRecord(result) ? String(result.message ?? '') : '',
		};
	}

	/**
	 * What the editor asks when a resource locator's "From List" opens:
	 * `POST /rest/dynamic-node-parameters/resource-locator-results` → {results, paginationToken}.
	 */
	async resourceLocatorResults(request: {
		nodeType: string;
		methodName: string;
		path: string;
		currentNodeParameters: Record<string, unknown>;
		credentials: Record<string, { id: string; name: string }>;
		filter?: string;
	}): Promise<Array<{ name: string; value: string }>> {
		const answer = await this.call(
			'POST',
			'/rest/dynamic-node-parameters/resource-locator-results',
			{
				nodeTypeAndVersion: { name: request.nodeType, version: 1 },
				methodName: request.methodName,
				path: request.path,
				currentNodeParameters: request.currentNodeParameters,
				credentials: request.credentials,
				filter: request.filter,
			},
		);
		const results = isRecord(answer) && Array.isArray(answer.results) ? answer.results : [];
		return results
			.filter(isRecord)
			.map((result) => ({ name: String(result.name), value: String(result.value) }));
	}

	/**
	 * `POST /rest/workflows` {name, nodes, connections, settings, active: false}; created inactive.
	 * 1.x stores the body as the entity and needs `active` (NOT NULL column, no default);
	 * 2.x validates it with a zod DTO that has no `active` and drops it.
	 */
	async createWorkflow(workflow: object): Promise<WorkflowSummary> {
		return workflowSummary(
			await this.call('POST', '/rest/workflows', { ...workflow, active: false }),
		);
	}

	/** `GET /rest/workflows` → the names of the workflows the user sees (first 250). */
	async workflowNames(): Promise<string[]> {
		const list = await this.call('GET', '/rest/workflows?take=250');
		return workflowNamesOf(list);
	}

	/** `GET /rest/credentials` → id, name and type of each stored credential (no data). */
	async credentials(): Promise<Array<{ id: string; name: string; type: string }>> {
		const list = await this.call('GET', '/rest/credentials');
		return (Array.isArray(list) ? list : []).filter(isRecord).map((item) => ({
			id: String(item.id),
			name: String(item.name),
			type: String(item.type),
		}));
	}

	/** `GET /rest/workflows/:id` as n8n answers it (nodes, static data, everything), as JSON text. */
	async workflowJson(id: string): Promise<string> {
		return JSON.stringify(
			await this.call('GET', `/rest/workflows/${id}`, undefined, { raw: true }),
		);
	}

	async getWorkflow(id: string): Promise<WorkflowSummary> {
		return workflowSummary(await this.call('GET', `/rest/workflows/${id}`));
	}

	/**
	 * `POST /rest/workflows/:id/activate` {versionId}: the same route and body in 1.123.x and 2.x.
	 * Older 1.x lines (1.82.3, the floor) have no such route (404) and take
	 * `PATCH /rest/workflows/:id` {active: true, versionId} instead. What differs is when the
	 * webhooks exist: 1.x registers them (and runs the trigger's subscription code) before answering;
	 * 2.x hands the activation to its workflow publication service and registers them a moment later.
	 */
	async activateWorkflow(
		workflow: WorkflowSummary,
		/** how long activating may take (a polling trigger reads its whole list then); 60 s by default */
		timeoutMs = 60_000,
	): Promise<WorkflowSummary> {
		if (!workflow.versionId)
			throw new Error(`workflow ${workflow.id} has no versionId to activate`);
		const body = { versionId: workflow.versionId };
		const path = `/rest/workflows/${workflow.id}`;
		const answer = await this.call('POST', `${path}/activate`, body, {
			timeoutMs,
			notFound: NO_ROUTE,
		});
		const activated = workflowSummary(
			answer === NO_ROUTE
				? await this.call('PATCH', path, { ...body, active: true }, { timeoutMs })
				: answer,
		);
		await this.publicationSettled(workflow.id, timeoutMs);
		return activated;
	}

	/**
	 * 2.41 publishes in the background: the activate call answers at once and each trigger's
	 * outcome is at `GET /rest/workflows/:id/publication-status` ({status: in_progress |
	 * published | partial | failed | not_published, triggers: [{nodeId, status, errorMessage}]}).
	 * Waits until it is no longer in progress; a trigger that failed fails the activation, as it
	 * does on the lines that answer only when done. Older lines have no such route (404).
	 */
	private async publicationSettled(workflowId: string, timeoutMs: number): Promise<void> {
		const path = `/rest/workflows/${workflowId}/publication-status`;
		const settled = await pollUntil(
			async () => {
				const answer = await this.call('GET', path, undefined, { notFound: {} });
				return isRecord(answer) && answer.status !== 'in_progress' ? answer : undefined;
			},
			{ timeoutMs, intervalMs: 200, what: `the publication of workflow ${workflowId}` },
		);
		if (settled.status === 'failed' || settled.status === 'partial') {
			const errors = (Array.isArray(settled.triggers) ? settled.triggers : [])
				.filter(isRecord)
				.map((trigger) => String(trigger.errorMessage ?? ''))
				.filter(Boolean);
			throw new Error(
				`workflow ${workflowId} was not published (${String(settled.status)}): ${errors.join('; ')}`,
			);
		}
	}

	/**
	 * `PATCH /rest/workflows/:id` {versionId, ...changes}: a new version of the workflow, as the
	 * editor saves it. On 1.x a workflow active when saved is activated again at once (n8n
	 * removes it and adds it again); 2.x keeps running the published version until it is
	 * published again (activateWorkflow with the new versionId).
	 */
	async updateWorkflow(workflow: WorkflowSummary, changes: object): Promise<WorkflowSummary> {
		const current = await this.getWorkflow(workflow.id);
		return workflowSummary(
			await this.call('PATCH', `/rest/workflows/${workflow.id}`, {
				...changes,
				versionId: current.versionId,
			}),
		);
	}

	/**
	 * `POST /rest/workflows/:id/deactivate` {} (2.x accepts an optional expectedChecksum; 1.x reads
	 * no body); lines without that route (1.82.3) take `PATCH /rest/workflows/:id` {active: false}.
	 */
	async deactivateWorkflow(workflow: WorkflowSummary): Promise<WorkflowSummary> {
		const path = `/rest/workflows/${workflow.id}`;
		const answer = await this.call('POST', `${path}/deactivate`, {}, { notFound: NO_ROUTE });
		if (answer !== NO_ROUTE) return workflowSummary(answer);
		const current = await this.getWorkflow(workflow.id);
		return workflowSummary(
			await this.call('PATCH', path, { active: false, versionId: current.versionId }),
		);
	}

	/** `GET /rest/community-packages`: the installed packages (with `updateAvailable`, `failedLoading`). */
	async communityPackages(): Promise<Array<Record<string, unknown>>> {
		const list = await this.call('GET', '/rest/community-packages');
		return Array.isArray(list) ? list.filter(isRecord) : [];
	}

	/** `GET /rest/executions?filter={"workflowId":…}` → {results, count, …}; newest first. */
	async listExecutions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.call('GET', `/rest/executions?filter=${filter}&limit=100`);
		const results = isRecord(page) && Array.isArray(page.results) ? page.results : [];
		return results.filter(isRecord).map(executionSummary);
	}

	/** How many executions the workflow has (`count` of the executions list), whatever their status. */
	async executionCount(workflowId: string): Promise<number> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.call('GET', `/rest/executions?filter=${filter}&limit=1`);
		return isRecord(page) && typeof page.count === 'number' ? page.count : 0;
	}

	/** `GET /rest/executions/:id` → the execution with `data` as a flatted string. */
	async getExecution(id: string): Promise<ExecutionDetail> {
		const execution = await this.call('GET', `/rest/executions/${id}`);
		if (!isRecord(execution)) throw new Error(`execution ${id}: unexpected answer`);
		const raw = execution.data;
		const data = typeof raw === 'string' ? parseFlatted(raw) : raw;
		if (!isRecord(data)) throw new Error(`execution ${id}: no data`);
		return { ...executionSummary(execution), data };
	}

	/** Calls a production webhook of an active workflow (no session needed). */
	async callWebhook(
		path: string,
		body: unknown,
		headers: Record<string, string> = {},
	): Promise<HttpResponse> {
		return await httpRequest(`${this.baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body: JSON.stringify(body),
			timeoutMs: 60_000,
		});
	}

	/** One REST call; unwraps n8n's `{data: …}` envelope unless `raw`; a 404 gives `notFound` when set. */
	private async call(
		method: string,
		path: string,
		body?: unknown,
		options: { raw?: boolean; notFound?: unknown; timeoutMs?: number } = {},
	): Promise<unknown> {
		const headers: Record<string, string> = {
			accept: 'application/json',
			'browser-id': this.browserId,
		};
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (this.cookie) headers.cookie = this.cookie;
		const response = await httpRequest(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs: options.timeoutMs ?? 60_000,
		});
		this.keepSessionCookie(response.headers);
		if (response.status === 404 && options.notFound !== undefined) return options.notFound;
		if (response.status < 200 || response.status >= 300)
			throw new N8nRestError(method, path, response.status, response.text);
		if (options.raw) return response.json;
		return isRecord(response.json) && 'data' in response.json ? response.json.data : response.json;
	}

	private keepSessionCookie(headers: Headers): void {
		for (const setCookie of headers.getSetCookie()) {
			const [pair] = setCookie.split(';');
			if (pair?.startsWith('n8n-auth=')) this.cookie = pair;
		}
	}
}

function namesOf(types: unknown): string[] {
	if (!Array.isArray(types)) throw new Error('type list is not an array');
	return types.filter(isRecord).map((type) => String(type.name));
}

function stringField(value: unknown, field: string): string {
	if (!isRecord(value) || value[field] === undefined)
		throw new Error(`answer has no ${field}: ${JSON.stringify(value)?.slice(0, 300)}`);
	return String(value[field]);
}

function workflowNamesOf(list: unknown): string[] {
	// 2.x answers a page {count, data}; 1.x a plain array
	const items = Array.isArray(list)
		? list
		: isRecord(list) && Array.isArray(list.data)
			? list.data
			: [];
	return items.filter(isRecord).map((item) => String(item.name));
}

function workflowSummary(value: unknown): WorkflowSummary {
	if (!isRecord(value)) throw new Error('workflow answer is not an object');
	return {
		id: stringField(value, 'id'),
		versionId: typeof value.versionId === 'string' ? value.versionId : undefined,
		// 2.x keeps `active` and adds `activeVersionId`; either marks an active workflow.
		active:
			value.active === true ||
			(typeof value.activeVersionId === 'string' && value.activeVersionId !== ''),
	};
}

function executionSummary(value: Record<string, unknown>): ExecutionSummary {
	return {
		id: String(value.id),
		status: String(value.status ?? ''),
		finished: value.finished === true,
		mode: String(value.mode ?? ''),
		workflowId: String(value.workflowId ?? ''),
		startedAt: typeof value.startedAt === 'string' ? value.startedAt : undefined,
		stoppedAt: typeof value.stoppedAt === 'string' ? value.stoppedAt : undefined,
	};
}
