import type {
	INode,
	INodeExecutionData,
	INodeParameters,
	IPollFunctions,
	Workflow,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { PollContext } from 'n8n-core';

import type { N8nHarness } from './harness';
import { CREDENTIAL_TYPE } from './harness';
import { PACKAGE } from './node-types';
import { StaticDataStore } from './webhooks';

export const POLLING_TRIGGER_NODE_TYPE = `${PACKAGE}.partnerLeadsPollingTrigger`;

/**
 * What the n8n application does around a polling trigger, with n8n-core's real PollContext
 * (n8n 2.41: n8n-core execution-engine/active-workflow-triggers.ts activatePollTrigger,
 * poll-trigger-executor.ts; cli workflows/triggers/trigger-execution-context.factory.ts
 * getExecutePollFunctions; active-workflow-manager.ts add):
 *
 * - activation: a Workflow built from the saved static data and one PollContext, reused for
 *   every poll of this activation; a first poll at once ("testingTrigger": its error fails the
 *   activation, its result starts an execution); then static data saved.
 * - each poll: a result starts one execution and static data is saved with it (`__emit`);
 *   `null` saves nothing; an error becomes the trigger's failure (`__emitError`).
 * - a restart: everything in memory is gone, the next activation ('init') loads the saved copy.
 * - "Fetch Test Event": poll() in manual mode on a copy of the workflow, nothing saved.
 */
export class PollHost {
	readonly executions: INodeExecutionData[][] = [];

	readonly errors: Error[] = [];

	private context: IPollFunctions | undefined;

	private workflowInUse: Workflow | undefined;

	readonly node: INode;

	constructor(
		private readonly harness: N8nHarness,
		parameters: INodeParameters,
		readonly store = new StaticDataStore(),
	) {
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

	private workflow(): Workflow {
		return this.harness.workflow([this.node], {}, this.store.load());
	}

	private pollContext(
		workflow: Workflow,
		mode: 'trigger' | 'manual',
		activation: WorkflowActivateMode,
	) {
		const emit = (data: INodeExecutionData[][]) => {
			this.store.saveIfChanged(workflow);
			this.executions.push(data[0] ?? []);
		};
		const emitError = (error: Error) => {
			this.errors.push(error);
		};
		return new PollContext(
			workflow,
			this.node,
			this.harness.additionalData(),
			mode,
			activation,
			emit,
			emitError,
		);
	}

	private async runPoll(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const nodeType = this.harness.nodeTypes.getByNameAndVersion(this.node.type, 1);
		if (!nodeType.poll) throw new Error('the polling trigger has no poll()');
		return await nodeType.poll.call(context);
	}

	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const workflow = this.workflow();
		this.workflowInUse = workflow;
		this.context = this.pollContext(workflow, 'trigger', activation);
		const result = await this.runPoll(this.context);
		if (result !== null) this.context.__emit(result);
		this.store.saveIfChanged(workflow);
	}

	/** One scheduled poll. */
	async poll(): Promise<void> {
		if (!this.context) throw new Error('activate first');
		try {
			const result = await this.runPoll(this.context);
			if (result !== null) this.context.__emit(result);
		} catch (error) {
			this.context.__emitError(error as Error);
		}
	}

	/** n8n stops: memory is gone; a new host on the same store starts with 'init'. */
	restarted(): PollHost {
		this.context = undefined;
		this.workflowInUse = undefined;
		return new PollHost(this.harness, this.node.parameters, this.store);
	}

	/** "Fetch Test Event": poll() in manual mode; returns what the editor would show. */
	async fetchTestEvent(): Promise<INodeExecutionData[][] | null> {
		const workflow = this.workflowInUse ?? this.workflow();
		return await this.runPoll(this.pollContext(workflow, 'manual', 'manual'));
	}

	/** Every emitted item, in order, as `topic id`. */
	events(): string[] {
		return this.executions.flatMap((items) =>
			items.map((item) => {
				const event = item.json.event as { id: string; topic: string };
				return `${event.topic} ${event.id}`;
			}),
		);
	}
}
