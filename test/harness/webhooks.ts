/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: runs in Node next to n8n, never inside it, never shipped */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import express from 'express';
import type { Request, Response } from 'express';
import type {
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	ITriggerResponse,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WebhookSetupMethodNames,
	Workflow,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { jsonParse, NodeHelpers } from 'n8n-workflow';
import { HookContext, TriggerContext, WebhookContext } from 'n8n-core';

import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import { runExecutorFor } from '../../nodes/PartnerLeadsTrigger/runs/executor';
import type { N8nHarness } from './harness';
import { CREDENTIAL_TYPE, TRIGGER_NODE_TYPE } from './harness';

/** The trigger's version, as n8n adds it. */
const TRIGGER_NODE_VERSION = new PartnerLeadsTrigger().description.version as number;

/** The name of the node after the trigger, when a test gives one (TriggerHostOptions.next). */
export const NEXT_NODE = 'Your System';

/**
 * What the n8n application does around a webhook trigger, with n8n-core's real
 * HookContext and WebhookContext, over real loopback HTTP. Each step follows n8n's cli
 * (packages/cli/src: active-workflow-manager.ts, webhooks/webhook.service.ts,
 * webhooks/webhook-helpers.ts, webhooks/live-webhooks.ts, webhooks/test-webhooks.ts,
 * middlewares/body-parser.ts):
 *
 * - activation: a Workflow built from the saved static data; checkExists, then create if
 *   it said false (mode 'trigger'); static data saved afterwards. If that throws, n8n
 *   clears the webhooks (delete on a Workflow freshly loaded from the database) and
 *   rethrows. Deactivation: delete (mode 'internal', activation 'update'), save, then the
 *   trigger closed; publishing a new version (activation 'update') deactivates first.
 * - "listen for test event": the same with mode 'manual' and the test URL; the static data
 *   stays in memory only and the test webhook is removed after the first execution.
 * - a delivery: raw bytes kept as `req.rawBody` (Buffer); `application/json` bodies parsed
 *   into `req.body` (unparsable ones answered 422 before the node runs); a Workflow built
 *   from the saved static data for every request; `webhook()` called through a
 *   WebhookContext with the real req/res; a throw answered 500; `workflowData` starts an
 *   execution and is answered 200 ('onReceived'); static data saved if it changed.
 *
 * Saved static data is a JSON copy, as in n8n's database: nothing is shared by reference
 * between requests, so lost updates between concurrent deliveries happen here as in n8n.
 */

/** The workflow's static data as n8n's database holds it. */
export class StaticDataStore {
	private saved = '{}';

	saves = 0;

	/** a crashed process saves nothing more */
	frozen = false;

	/**
	 * How long a delivery's save waits in n8n's database queue before it is written (0: at
	 * once). Under a burst n8n's saves queue behind each other; the answer waits for the save.
	 */
	deliverySaveMs = 0;

	load(): IDataObject {
		return JSON.parse(this.saved) as IDataObject;
	}

	/** n8n's WorkflowStaticDataService.saveStaticData: only when the Workflow saw a change. */
	saveIfChanged(workflow: Workflow): void {
		if (this.frozen) return;
		if ((workflow.staticData as { __dataChanged?: boolean }).__dataChanged !== true) return;
		this.saved = JSON.stringify(workflow.staticData);
		this.saves++;
	}

	/** The trigger node's part, for assertions. */
	nodeData(nodeName: string): IDataObject {
		return (this.load()[`node:${nodeName}`] as IDataObject | undefined) ?? {};
	}

	/** Replaces the trigger node's part, as an earlier version of the node may have saved it. */
	replaceNodeData(nodeName: string, data: IDataObject): void {
		this.saved = JSON.stringify({ ...this.load(), [`node:${nodeName}`]: data });
	}

	/** Simulates losing everything the node stored (e.g. a crash before n8n saved it). */
	wipe(): void {
		this.saved = '{}';
	}
}

export interface Execution {
	mode: WorkflowExecuteMode;
	/** what the trigger node emitted */
	items: INodeExecutionData[];
	run: IRun;
}

export interface Answer {
	path: string;
	status: number;
	/** whether the node ran (false: n8n answered before it, e.g. 404 or 422) */
	nodeRan: boolean;
}

export interface TriggerHostOptions {
	parameters: INodeParameters;
	/** keep these to simulate a restart of the same workflow */
	store?: StaticDataStore;
	node?: Pick<INode, 'id' | 'name' | 'webhookId'> & Partial<Pick<INode, 'typeVersion'>>;
	/** loopback port; 0 picks a free one. A restart reuses the port so the URL stays the same. */
	port?: number;
	/**
	 * When n8n saves what webhook() changed in static data. 'always' (1.x): right after it.
	 * 'whenAnsweredByNode' (2.x): n8n starts the execution before it saves, and building the
	 * execution's Workflow resets the "changed" flag; only a webhook that answered the request
	 * itself (noWebhookResponse) has its static data saved first.
	 */
	webhookStaticDataSaved?: 'always' | 'whenAnsweredByNode';
	deduplicationKeys?: Set<string>;
	/** false: emulate n8n 1.x, which ignores emit's deduplication key (default: kept, 2.20+) */
	deduplicationKeysKept?: boolean;
	/** a node the trigger's output goes to, named NEXT_NODE */
	next?: Pick<INode, 'type' | 'parameters'>;
	/**
	 * Which n8n line's trigger handling to follow (default 2). 1.x: trigger() has no
	 * saveFailedExecution, and emitError makes n8n add the workflow again (its webhook methods,
	 * then trigger()). 2.x: emitError restarts trigger() alone and then saves its static data
	 * (WorkflowTriggerActivator.recoverFromRuntimeTriggerFailure).
	 */
	n8nLine?: 1 | 2;
}

/**
 * How n8n starts a trigger again after its emitError: 1.x adds the workflow again after 1 s,
 * doubled after each failure, up to a day (ActiveWorkflowManager.addQueuedWorkflowActivation);
 * 2.x restarts the trigger at once, then after 1, 2, 4 and 8 s. Tests shorten the first wait;
 * `attempts` bounds the harness's retries.
 */
export const REACTIVATION = { firstWaitMs: 1_000, maxWaitMs: 24 * 60 * 60_000, attempts: 30 };

type Registration = { webhookData: IWebhookData; mode: 'production' | 'test' };

/** n8n's deferred promise (@n8n/utils), as emit takes it. */
type Deferred<T> = { resolve(value: T): void; reject(error: Error): void };

export class TriggerHost {
	readonly executions: Execution[] = [];

	readonly answers: Answer[] = [];

	/** errors thrown by webhook() (n8n answers those 500) */
	readonly crashes: Error[] = [];

	readonly store: StaticDataStore;

	readonly node: INode;

	private readonly pending = new Set<Promise<unknown>>();

	private production?: Registration;

	private test?: Registration & { staticData: IDataObject };

	/**
	 * Simulates n8n dying right after the trigger's n-th emit was saved and its execution
	 * started: nothing is saved or started after it.
	 */
	crashAfterEmits?: number;

	/**
	 * Simulates a hard kill of n8n right after the trigger's n-th emit saved static data, before
	 * its execution exists: nothing more is saved, no execution starts or finishes, deliveries
	 * waiting for a run are never answered by this process (`interrupted` lists their answers).
	 */
	dieAfterEmits?: number;

	/** the items of each emit, also of one the process died at (n8n never ran it) */
	readonly emitted: INodeExecutionData[][] = [];

	/** executions n8n 2.20+ holds a deduplication key of (kept across restarts, as its database) */
	readonly deduplicationKeys: Set<string>;

	/** false: n8n before 2.20 (1.x), which ignores emit's deduplication key */
	private readonly deduplicationKeysKept: boolean;

	private emits = 0;

	/** the running trigger() of the active workflow (ActiveWorkflows' trigger response) */
	private triggerResponse?: ITriggerResponse;

	/** the workflow's activation error as n8n's editor shows it, until an activation succeeds */
	activationError?: string;

	/** the errors n8n ran the workflow's Error Workflow with, in order */
	readonly errorWorkflowRuns: Error[] = [];

	/** failed executions trigger() recorded with saveFailedExecution (n8n 2.x) */
	readonly failedExecutions: Error[] = [];

	/** activations n8n made by itself after an emitError, and those that failed */
	readonly reactivations = { done: 0, failed: 0 };

	private readonly n8nLine: 1 | 2;

	/** the Workflow the running trigger() was started on (its static data is saved with emits) */
	private triggerWorkflow?: Workflow;

	/** the static data the workflow was last activated with, as the database held it then */
	private activatedWith?: IDataObject;

	private readonly webhookStaticDataSaved: 'always' | 'whenAnsweredByNode';

	private readonly next?: Pick<INode, 'type' | 'parameters'>;

	private constructor(
		private readonly harness: N8nHarness,
		private readonly server: Server,
		readonly baseUrl: string,
		options: TriggerHostOptions,
	) {
		this.store = options.store ?? new StaticDataStore();
		this.deduplicationKeys = options.deduplicationKeys ?? new Set();
		this.deduplicationKeysKept = options.deduplicationKeysKept ?? true;
		this.webhookStaticDataSaved = options.webhookStaticDataSaved ?? 'always';
		this.next = options.next;
		this.n8nLine = options.n8nLine ?? 2;
		this.node = {
			id: options.node?.id ?? randomUUID(),
			name: options.node?.name ?? 'Partner Referral Service Trigger',
			webhookId: options.node?.webhookId ?? randomUUID(),
			type: TRIGGER_NODE_TYPE,
			typeVersion: options.node?.typeVersion ?? TRIGGER_NODE_VERSION,
			position: [0, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_TYPE]: harness.credential },
		};
	}

	static async start(harness: N8nHarness, options: TriggerHostOptions): Promise<TriggerHost> {
		const app = express();
		const server = await new Promise<Server>((resolve, reject) => {
			const listening = app.listen(options.port ?? 0, '127.0.0.1', (error?: Error) =>
				error ? reject(error) : resolve(listening),
			);
		});
		const { port } = server.address() as AddressInfo;
		const host = new TriggerHost(harness, server, `http://127.0.0.1:${port}/`, options);
		app.use((req, res) => host.track(host.receive(req, res)));
		return host;
	}

	get port(): number {
		return Number(new URL(this.baseUrl).port);
	}

	/**
	 * What a restarted n8n keeps of this workflow: its definition, its saved static data and
	 * its address. Pass to `TriggerHost.start` (after `close()`), with new parameters if the
	 * user changed them.
	 */
	persisted(parameters: INodeParameters = this.node.parameters): TriggerHostOptions {
		return {
			parameters,
			store: this.store,
			node: this.node,
			port: this.port,
			webhookStaticDataSaved: this.webhookStaticDataSaved,
			deduplicationKeys: this.deduplicationKeys,
			deduplicationKeysKept: this.deduplicationKeysKept,
			next: this.next,
			n8nLine: this.n8nLine,
		};
	}

	/** n8n's WEBHOOK_URL-based address of the trigger: production or test. */
	webhookUrl(mode: 'production' | 'test' = 'production'): string {
		const base = mode === 'production' ? 'webhook' : 'webhook-test';
		return `${this.baseUrl}${base}/${this.webhookPath()}`;
	}

	/** A Workflow as n8n builds one: from the saved static data (or the one given), never a shared object. */
	workflow(staticData: IDataObject = this.store.load()): Workflow {
		if (!this.next) return this.harness.workflow([{ ...this.node }], {}, staticData);
		const next: INode = {
			...this.next,
			id: 'next',
			name: NEXT_NODE,
			typeVersion: 1,
			position: [200, 0],
		};
		const connections = {
			[this.node.name]: { main: [[{ node: NEXT_NODE, type: 'main' as const, index: 0 }]] },
		};
		return this.harness.workflow([{ ...this.node }, next], connections, staticData);
	}

	// ---- activation (ActiveWorkflowManager.add / clearWebhooks) ----

	/**
	 * `activation`: 'activate' when the user activates, 'init' when n8n starts with the
	 * workflow active. After the webhooks, n8n starts the node's trigger() on the same
	 * long-lived Workflow (ActiveWorkflowManager.addNonWebhookTriggers); its emit saves that
	 * Workflow's static data, then starts an execution in mode 'trigger'.
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		// a new version published: n8n removes the workflow, then adds it again
		if (activation === 'update') await this.deactivate();
		await this.add(activation);
	}

	/**
	 * ActiveWorkflowManager.add: the webhooks (checkExists, create), then trigger(); saved. n8n 1.x
	 * adds a workflow again after an emitError with the workflow data it first activated it with
	 * (`activatedWith`): static data as the database held it then, not what was saved since.
	 */
	private async add(activation: WorkflowActivateMode, activatedWith?: IDataObject): Promise<void> {
		const staticData = activatedWith ?? this.store.load();
		this.activatedWith = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		const workflow = this.workflow(staticData);
		const webhookData = this.webhookData(workflow, false);
		try {
			const exists = await this.runMethod(
				'checkExists',
				workflow,
				webhookData,
				'trigger',
				activation,
			);
			if (!exists) await this.runMethod('create', workflow, webhookData, 'trigger', activation);
		} catch (error) {
			this.activationError = (error as Error).message;
			await this.deactivate().catch(() => undefined);
			throw error;
		}
		// killed meanwhile: the process that made the subscription saves and starts nothing
		if (this.dead) return;
		this.production = { webhookData, mode: 'production' };
		await this.startTrigger(workflow, activation);
		this.store.saveIfChanged(workflow);
		this.activationError = undefined;
	}

	/**
	 * The trigger's emitError: its trigger() closed (not its webhooks), the activation error
	 * registered, the Error Workflow run; then 1.x adds the workflow again after
	 * REACTIVATION.firstWaitMs with the same activation mode, the wait doubled after each failure,
	 * while 2.x restarts trigger() alone on the same Workflow and saves its static data.
	 */
	private triggerFailed(error: Error, activation: WorkflowActivateMode): void {
		this.activationError = error.message;
		this.errorWorkflowRuns.push(error);
		this.track(
			(async () => {
				const activatedWith = this.activatedWith;
				await this.stopTrigger();
				if (this.n8nLine === 2) return await this.restartTrigger(activation);
				let waitMs = REACTIVATION.firstWaitMs;
				for (let attempt = 0; attempt < REACTIVATION.attempts && !this.closed; attempt++) {
					await sleep(waitMs);
					if (this.closed || this.dead) return;
					try {
						await this.add(activation, activatedWith);
						this.reactivations.done++;
						return;
					} catch {
						this.reactivations.failed++;
						waitMs = Math.min(waitMs * 2, REACTIVATION.maxWaitMs);
					}
				}
			})(),
		);
	}

	/** 2.x: trigger() started again on its Workflow, whose static data n8n then saves. */
	private async restartTrigger(activation: WorkflowActivateMode): Promise<void> {
		const workflow = this.triggerWorkflow;
		if (!workflow || this.closed || this.dead) return;
		await this.startTrigger(workflow, activation);
		this.store.saveIfChanged(workflow);
		this.activationError = undefined;
		this.reactivations.done++;
	}

	/** The trigger's saveFailedExecution (n8n 2.x): a failed execution, then the Error Workflow. */
	private triggerReportedError(error: Error): void {
		this.failedExecutions.push(error);
		this.errorWorkflowRuns.push(error);
	}

	private async startTrigger(workflow: Workflow, activation: WorkflowActivateMode): Promise<void> {
		const node = workflow.getNode(this.node.name) as INode;
		const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		if (!nodeType.trigger) return;
		// Activating again (a restart, a re-activation) replaces the running trigger(): n8n
		// removes a workflow's triggers before it adds them anew, so the old one is closed.
		await this.stopTrigger();
		// n8n's emit (trigger-execution-context.factory): static data saved first; the done
		// promise settles with the run once the execution finished, or with nothing when n8n 2.20+
		// refuses a second execution of the same deduplication key.
		const emit = (
			data: INodeExecutionData[][],
			_response?: unknown,
			done?: Deferred<IRun>,
			deduplicationKey?: string,
		) => {
			if (this.store.frozen) return;
			this.store.saveIfChanged(workflow);
			this.emitted.push(data[0] ?? []);
			this.emits++;
			if (this.emits === this.crashAfterEmits) this.store.frozen = true;
			if (this.emits === this.dieAfterEmits) return this.die();
			if (deduplicationKey !== undefined && this.deduplicationKeysKept) {
				if (this.deduplicationKeys.has(deduplicationKey))
					return done?.resolve(undefined as unknown as IRun);
				this.deduplicationKeys.add(deduplicationKey);
			}
			const execution = this.execute(this.workflow(), node.name, data[0] ?? [], 'trigger');
			this.track(
				execution.then(
					(run) => done?.resolve(run),
					(error: Error) => done?.reject(error),
				),
			);
		};
		const context = new TriggerContext(
			workflow,
			node,
			this.additionalData(),
			'trigger',
			activation,
			emit,
			(error: Error) => this.triggerFailed(error, activation),
			(error: Error) => this.triggerReportedError(error),
		);
		// n8n 1.x's TriggerContext has no saveFailedExecution
		if (this.n8nLine === 1)
			(context as { saveFailedExecution?: unknown }).saveFailedExecution = undefined;
		this.triggerWorkflow = workflow;
		this.triggerResponse = (await nodeType.trigger.call(context)) ?? undefined;
	}

	/** whether the process was killed: it answers nothing more */
	dead = false;

	/** A hard kill of n8n now (kill -9): nothing more is saved, answered, started or finished. */
	killNow(): void {
		this.die();
	}

	private die(): void {
		this.store.frozen = true;
		this.dead = true;
		this.server.closeAllConnections();
	}

	/** ActiveWorkflows.remove: the trigger's closeFunction. */
	private async stopTrigger(): Promise<void> {
		const response = this.triggerResponse;
		this.triggerResponse = undefined;
		await response?.closeFunction?.();
	}

	/**
	 * ActiveWorkflowManager.remove: the webhooks are deleted (on the workflow as the database
	 * holds it, whose static data is saved after), then the trigger is closed.
	 */
	async deactivate(): Promise<void> {
		this.production = undefined;
		const workflow = this.workflow();
		await this.runMethod(
			'delete',
			workflow,
			this.webhookData(workflow, false),
			'internal',
			'update',
		);
		this.store.saveIfChanged(workflow);
		await this.stopTrigger();
	}

	/**
	 * Only the routing entry: n8n stores it (ActiveWorkflowManager.addWebhooks) before it
	 * runs checkExists/create, so deliveries can reach a workflow whose lifecycle has not run.
	 */
	registerRoute(): void {
		this.production = { webhookData: this.webhookData(this.workflow(), false), mode: 'production' };
	}

	/** checkExists alone, as n8n runs it first on every activation. */
	async checkExists(): Promise<boolean> {
		const workflow = this.workflow();
		return (
			(await this.runMethod(
				'checkExists',
				workflow,
				this.webhookData(workflow, false),
				'trigger',
				'init',
			)) === true
		);
	}

	// ---- the editor's "listen for test event" (TestWebhooks.needsWebhook) ----

	async listenForTestEvent(): Promise<void> {
		const workflow = this.workflow();
		const webhookData = this.webhookData(workflow, true);
		try {
			const exists = await this.runMethod('checkExists', workflow, webhookData, 'manual', 'manual');
			if (!exists) await this.runMethod('create', workflow, webhookData, 'manual', 'manual');
		} catch (error) {
			await this.runMethod('delete', workflow, webhookData, 'internal', 'update').catch(
				() => undefined,
			);
			throw error;
		}
		this.test = { webhookData, mode: 'test', staticData: workflow.staticData };
	}

	/** TestWebhooks.deactivateWebhooks: delete with the static data kept since create. */
	async stopListening(): Promise<void> {
		const test = this.test;
		if (!test) return;
		this.test = undefined;
		const workflow = this.workflow();
		workflow.staticData = test.staticData;
		await this.runMethod('delete', workflow, test.webhookData, 'internal', 'update');
	}

	get listening(): boolean {
		return this.test !== undefined;
	}

	// ---- bookkeeping ----

	statuses(): Record<number, number> {
		const counts: Record<number, number> = {};
		for (const answer of this.answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
		return counts;
	}

	/**
	 * Waits until every request received so far is answered, every event the trigger accepted
	 * has run (up to 10 s: a run whose lead cannot be read stays in flight) and every execution
	 * finished.
	 */
	async settle(): Promise<void> {
		const deadline = Date.now() + 10_000;
		for (;;) {
			while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
			if (this.dead || this.runsInFlight() === 0 || Date.now() > deadline) return;
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}

	/** The runs the trigger holds in this process: accepted and not finished. */
	runsInFlight(): number {
		const scope = `${this.workflow().id ?? ''}:${this.node.id}:production`;
		return runExecutorFor(scope)?.records().inFlight.size ?? 0;
	}

	/** the host was closed (n8n stopped): it publishes nothing again by itself */
	private closed = false;

	async close(): Promise<void> {
		this.closed = true;
		await this.stopTrigger();
		await this.settle();
		if (!this.server.listening) return;
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		await closed;
	}

	// ---- internals ----

	private webhookPath(): string {
		return `${this.node.webhookId}/webhook`;
	}

	/** WebhookService.getNodeWebhooks for our single trigger. */
	private webhookData(workflow: Workflow, isTest: boolean): IWebhookData {
		const node = workflow.getNode(this.node.name) as INode;
		const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const description = nodeType.description.webhooks?.[0];
		if (!description) throw new Error('The trigger declares no webhook');
		const rawPath = String(
			workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {}),
		);
		const isFullPath = workflow.expression.getSimpleParameterValue(
			node,
			description.isFullPath,
			'internal',
			{},
			undefined,
			false,
		) as boolean;
		const path = NodeHelpers.getNodeWebhookPath(
			workflow.id,
			node,
			rawPath.replace(/^\/|\/$/g, ''),
			isFullPath,
			false,
		);
		const httpMethod = workflow.expression.getSimpleParameterValue(
			node,
			description.httpMethod,
			'internal',
			{},
			undefined,
			'GET',
		) as IHttpRequestMethods;
		return {
			httpMethod,
			node: node.name,
			path,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: this.additionalData(),
			isTest,
		};
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return this.harness.additionalData(undefined, this.baseUrl);
	}

	/** WebhookService.runWebhookMethod */
	private async runMethod(
		method: WebhookSetupMethodNames,
		workflow: Workflow,
		webhookData: IWebhookData,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		const node = workflow.getNode(webhookData.node) as INode;
		const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const fn = nodeType.webhookMethods?.[webhookData.webhookDescription.name]?.[method];
		if (fn === undefined) return undefined;
		const context = new HookContext(
			workflow,
			node,
			webhookData.workflowExecuteAdditionalData,
			mode,
			activation,
			webhookData,
		);
		return (await fn.call(context)) as boolean;
	}

	private track<T>(promise: Promise<T>): void {
		this.pending.add(promise);
		void promise.finally(() => this.pending.delete(promise));
	}

	/** rawBodyReader + parseBody of n8n's cli */
	private async readBody(req: Request): Promise<boolean> {
		const chunks: Buffer[] = [];
		for await (const chunk of req)
			chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
		const rawBody = Buffer.concat(chunks);
		(req as Request & { rawBody?: Buffer }).rawBody = rawBody;
		const contentType = String(req.headers['content-type'] ?? '')
			.split(';')[0]
			.trim()
			.toLowerCase();
		const charset = /charset=([^;]+)/i
			.exec(String(req.headers['content-type'] ?? ''))?.[1]
			?.trim()
			.toLowerCase();
		const encoding = (
			charset === 'utf-8' || charset === undefined ? 'utf8' : charset
		) as BufferEncoding;
		if (rawBody.length > 0 && contentType === 'application/json') {
			try {
				req.body = jsonParse(rawBody.toString(encoding));
			} catch {
				return false;
			}
		}
		req.body ??= {};
		return true;
	}

	/** Called as each request is answered (the database as n8n holds it then: `store`). */
	onAnswer?: (body: unknown, status: number) => void;

	private answered(req: Request, res: Response, nodeRan: boolean): void {
		this.answers.push({ path: req.path, status: res.statusCode, nodeRan });
		this.onAnswer?.(req.body, res.statusCode);
	}

	private async receive(req: Request, res: Response): Promise<void> {
		if (this.dead) {
			req.socket.destroy();
			return;
		}
		const path = req.path.replace(/^\/+|\/+$/g, '');
		const registration =
			this.production &&
			req.method === this.production.webhookData.httpMethod &&
			path === `webhook/${this.webhookPath()}`
				? this.production
				: this.test &&
					  req.method === this.test.webhookData.httpMethod &&
					  path === `webhook-test/${this.webhookPath()}`
					? this.test
					: undefined;
		if (!registration) {
			res.status(404).json({ code: 404, message: 'The requested webhook is not registered.' });
			return this.answered(req, res, false);
		}
		if (!(await this.readBody(req))) {
			res.status(422).json({ code: 422, message: 'Failed to parse request body' });
			return this.answered(req, res, false);
		}

		const workflow = this.workflow();
		const isTest = registration.mode === 'test';
		if (isTest && this.test) workflow.setTestStaticData(this.test.staticData);
		const mode: WorkflowExecuteMode = isTest ? 'manual' : 'webhook';
		const node = workflow.getNode(this.node.name) as INode;
		const additionalData = this.additionalData();
		additionalData.httpRequest = req;
		additionalData.httpResponse = res;

		let result: IWebhookResponseData;
		try {
			const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			if (!nodeType.webhook) throw new Error('The node has no webhook method');
			const context = new WebhookContext(
				workflow,
				node,
				additionalData,
				mode,
				registration.webhookData,
				[],
				null,
			);
			result = (await nodeType.webhook.call(context)) as IWebhookResponseData;
		} catch (error) {
			this.crashes.push(error as Error);
			if (!res.headersSent)
				res
					.status(500)
					.json({ code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' });
			return this.answered(req, res, true);
		}

		const saved =
			this.webhookStaticDataSaved === 'always' ||
			result.noWebhookResponse === true ||
			result.workflowData === undefined;
		if (result.workflowData !== undefined) {
			this.track(this.execute(workflow, node.name, result.workflowData[0] ?? [], mode));
		}
		if (!isTest && saved) {
			const changed = (workflow.staticData as { __dataChanged?: boolean }).__dataChanged === true;
			if (changed && this.store.deliverySaveMs > 0) await sleep(this.store.deliverySaveMs);
			this.store.saveIfChanged(workflow);
		}
		if (result.noWebhookResponse !== true && !res.headersSent) {
			res
				.status(200)
				.json(
					result.workflowData !== undefined
						? { message: 'Workflow was started' }
						: (result.webhookResponse ?? { message: 'Webhook call received' }),
				);
		}
		this.answered(req, res, true);
		// n8n removes the test webhook once it started an execution.
		if (isTest && result.workflowData !== undefined) await this.stopListening();
	}

	/** executions under way now, and the most there ever were at once */
	readonly concurrency = { now: 0, max: 0 };

	/** the items of the executions under way now (events sharing them), and the most at once */
	readonly itemsUnderWay = { now: 0, max: 0 };

	/** how long each execution takes besides the trigger node (the workflow's other nodes) */
	executionMs = 0;

	/** and for each of its items, one after the other (a node that waits on each: an AI model) */
	itemMs = 0;

	/** while set, every execution waits for it before its nodes run (a workflow stalled by the test) */
	private executionGate?: Promise<void>;

	/** Executions started from now on wait until the returned function is called. */
	holdExecutions(): () => void {
		let release = () => undefined as void;
		this.executionGate = new Promise<void>((resolve) => (release = resolve));
		return () => {
			this.executionGate = undefined;
			release();
		};
	}

	private async execute(
		workflow: Workflow,
		nodeName: string,
		items: INodeExecutionData[],
		mode: WorkflowExecuteMode,
	): Promise<IRun> {
		this.concurrency.now++;
		this.concurrency.max = Math.max(this.concurrency.max, this.concurrency.now);
		this.itemsUnderWay.now += items.length;
		this.itemsUnderWay.max = Math.max(this.itemsUnderWay.max, this.itemsUnderWay.now);
		const run = await (this.executionGate ?? Promise.resolve())
			.then(async () => await sleep(this.executionMs + this.itemMs * items.length))
			.then(async () => await this.harness.runWorkflow(workflow, nodeName, items, mode))
			.finally(() => {
				this.concurrency.now--;
				this.itemsUnderWay.now -= items.length;
			});
		const emitted = run.data.resultData.runData[nodeName]?.[0]?.data?.main?.[0] ?? [];
		this.executions.push({ mode, items: emitted, run });
		return run;
	}
}
