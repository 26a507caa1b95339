/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: the harness rethrows what n8n would, never shipped */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IPollFunctions,
	Workflow,
	WorkflowActivateMode,
} from 'n8n-workflow';
import {
	commitStagedCursor,
	PollContext,
	PollTriggerExecutor,
	runPollInStagingScope,
	TriggersAndPollers,
} from 'n8n-core';

import type { N8nHarness } from './harness';
import { CREDENTIAL_TYPE } from './harness';
import { PACKAGE } from './node-types';
import type { DeathPoint } from './poll-cursors';
import { PollDatabase, pollFunctionsWithCursors } from './poll-cursors';
import { StaticDataStore } from './webhooks';

export const POLLING_TRIGGER_NODE_TYPE = `${PACKAGE}.partnerLeadsPollingTrigger`;

export interface PollHostOptions {
	/**
	 * n8n 2.41 with N8N_POLLER_DURABLE_CURSORS_ENABLED, N8N_SCHEDULER_ENABLED,
	 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED and N8N_USE_WORKFLOW_PUBLICATION_SERVICE
	 */
	durableCursors?: boolean;
	/** what survives a restart; a new, empty one unless given */
	database?: PollDatabase;
	/**
	 * the scheduler's time for a poll less its margin (the cli's pollBudgetMs: 36 s with its
	 * defaults); the activation's and n8n's default polls keep PollContext's own (5 minutes)
	 */
	pollBudgetMs?: number;
}

/**
 * What the n8n application does around a polling trigger, with n8n-core's real PollContext
 * and PollTriggerExecutor (n8n 2.41: n8n-core execution-engine/active-workflow-triggers.js
 * activatePollTrigger, poll-trigger-executor.js; cli trigger-execution-context.factory.js
 * getExecutePollFunctions, emulated in poll-cursors.ts; active-workflow-manager.js add):
 *
 * - activation: a Workflow built from the saved static data and one PollContext; a first poll
 *   at once ("testingTrigger": its error fails the activation, its result starts an execution,
 *   a `null` is not committed); then static data saved.
 * - n8n's default (crons in the process): that PollContext is reused for every poll of the
 *   activation; a result starts one execution and static data is saved with it; `null` saves
 *   nothing (the change stays in the Workflow in memory); an error becomes `__emitError`.
 * - durable cursors (the scheduler's poll task, scheduling/poll-trigger-node/
 *   poll-trigger-task-handler.js): the first poll only when the node's scheduled job is new
 *   (not at a restart); each scheduled poll gets a fresh Workflow from the database and a fresh
 *   PollContext (activation 'update') on the `poller_state` row; a result is committed with
 *   its execution, a `null` commits the cursor alone.
 * - a restart: everything in memory is gone; executions committed and not run start
 *   (enqueued-execution-recovery.service.js); the next activation ('init') loads the saved copy.
 * - "Fetch Test Event": poll() in manual mode on a copy of the workflow, nothing saved.
 */
export class PollHost {
	readonly executions: INodeExecutionData[][] = [];

	readonly errors: Error[] = [];

	/** where this process dies at its next hand-off of items, if it does (then restart it) */
	dieAt: DeathPoint | undefined;

	private dead = false;

	/** n8n's default: the activation's poll, run again at each Poll Time */
	private scheduledPoll: ((testingTrigger?: boolean) => Promise<void>) | undefined;

	private workflowInUse: Workflow | undefined;

	readonly node: INode;

	readonly database: PollDatabase;

	readonly durableCursors: boolean;

	private readonly pollBudgetMs: number | undefined;

	constructor(
		private readonly harness: N8nHarness,
		parameters: INodeParameters,
		options: PollHostOptions = {},
	) {
		this.durableCursors = options.durableCursors === true;
		this.pollBudgetMs = options.pollBudgetMs;
		this.database = options.database ?? new PollDatabase(new StaticDataStore());
		this.node = {
			id: 'polling-trigger',
			name: 'Polling Trigger',
			type: POLLING_TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters },
			credentials: { [CREDENTIAL_TYPE]: harness.credential },
		};
	}

	get store(): StaticDataStore {
		return this.database.store;
	}

	private workflow(): Workflow {
		return this.harness.workflow([this.node], {}, this.store.load());
	}

	private pollFunctions(
		workflow: Workflow,
		activation: WorkflowActivateMode,
		scheduledTask?: { prefetchedCursor: PollDatabase['cursorRow'] },
	): PollContext {
		return pollFunctionsWithCursors(
			workflow,
			this.node,
			this.harness.additionalData(),
			activation,
			{
				durableCursors: this.durableCursors,
				database: this.database,
				run: (data) => this.executions.push(data[0] ?? []),
				emitError: (error) => this.errors.push(error),
				deathPoint: () => this.takeDeath(),
				prefetchedCursor: scheduledTask?.prefetchedCursor,
				pollBudgetMs: scheduledTask ? this.pollBudgetMs : undefined,
			},
		);
	}

	private takeDeath(): DeathPoint | undefined {
		const death = this.dieAt;
		if (death) this.dead = true;
		this.dieAt = undefined;
		return death;
	}

	private executor(workflow: Workflow, context: IPollFunctions) {
		const logger = { scoped: () => logger, debug() {}, error() {}, warn() {}, info() {} };
		const span = { setStatus() {} };
		const tracing = {
			startSpan: async (_: unknown, run: (s: typeof span) => Promise<void>) => await run(span),
			startNewTraceSpan: async (_: unknown, run: (s: typeof span) => Promise<void>) =>
				await run(span),
			pickWorkflowAttributes: () => ({}),
			pickNodeAttributes: () => ({}),
		};
		type Args = ConstructorParameters<typeof PollTriggerExecutor>;
		return new PollTriggerExecutor(
			logger as unknown as Args[0],
			new TriggersAndPollers(),
			tracing as unknown as Args[2],
			{ error() {} } as unknown as Args[3],
		).create(workflow, this.node, context, () => true);
	}

	private async runPoll(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const nodeType = this.harness.nodeTypes.getByNameAndVersion(this.node.type, 1);
		if (!nodeType.poll) throw new Error('the polling trigger has no poll()');
		return await nodeType.poll.call(context);
	}

	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const workflow = this.workflow();
		this.workflowInUse = workflow;
		const executePoll = this.executor(workflow, this.pollFunctions(workflow, activation));
		if (this.durableCursors) {
			// the first poll only when the scheduler's job for the node is new
			const inserted = !this.database.jobRegistered;
			this.database.jobRegistered = true;
			if (inserted) {
				try {
					await executePoll(true);
				} catch (error) {
					this.database.jobRegistered = false;
					throw error;
				}
			}
		} else {
			await executePoll(true);
			this.scheduledPoll = executePoll;
		}
		this.store.saveIfChanged(workflow);
	}

	/** One scheduled poll. */
	async poll(): Promise<void> {
		if (this.dead) throw new Error('this n8n process died: restart it');
		if (this.durableCursors) return await this.scheduledPollTask();
		if (!this.scheduledPoll) throw new Error('activate first');
		await this.scheduledPoll();
	}

	/** The scheduler's poll task: a Workflow and PollContext of its own on the stored cursor. */
	private async scheduledPollTask(): Promise<void> {
		if (!this.database.jobRegistered) throw new Error('activate first');
		const workflow = this.workflow();
		const context = this.pollFunctions(workflow, 'update', {
			prefetchedCursor: this.database.cursorRow,
		});
		await runPollInStagingScope(context, async () => {
			try {
				const result = await this.runPoll(context);
				if (result !== null) context.__emit(result);
				else await commitStagedCursor(context);
			} catch (error) {
				context.__emitError(error as Error);
			}
		});
	}

	/** The workflow is deactivated: its scheduled job goes, its cursor row stays. */
	deactivate(): void {
		this.database.jobRegistered = false;
		this.scheduledPoll = undefined;
	}

	/**
	 * n8n stops (or dies): memory is gone; a new host on the same database starts the
	 * executions committed and not run, then is activated with 'init' by the caller.
	 */
	restarted(): PollHost {
		this.scheduledPoll = undefined;
		this.workflowInUse = undefined;
		const next = new PollHost(this.harness, this.node.parameters, {
			durableCursors: this.durableCursors,
			database: this.database,
			pollBudgetMs: this.pollBudgetMs,
		});
		next.executions.push(...this.database.enqueued.splice(0).map((data) => data[0] ?? []));
		return next;
	}

	/** The node's static data as the next poll starts from it: in memory (n8n's default) or saved. */
	nodeDataNow(): IDataObject {
		const inMemory = this.durableCursors ? undefined : this.workflowInUse;
		if (!inMemory) return this.store.nodeData(this.node.name);
		return inMemory.getStaticData('node', this.node);
	}

	/** "Fetch Test Event": poll() in manual mode; returns what the editor would show. */
	async fetchTestEvent(): Promise<INodeExecutionData[][] | null> {
		const workflow = this.workflowInUse ?? this.workflow();
		const manual = new PollContext(
			workflow,
			this.node,
			this.harness.additionalData(),
			'manual',
			'manual',
		);
		return await this.runPoll(manual);
	}

	/** Every emitted item, in order, as `topic id`. */
	events(): string[] {
		return this.eventsByExecution().flat();
	}

	/** Each execution's items, in order, as `topic id`. */
	eventsByExecution(): string[][] {
		return this.executions.map((items) =>
			items.map((item) => {
				const event = item.json.event as { id: string; topic: string };
				return `${event.topic} ${event.id}`;
			}),
		);
	}
}
