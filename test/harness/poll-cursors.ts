/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { PollContext } from 'n8n-core';

import type { StaticDataStore } from './webhooks';

/**
 * What n8n 2.41's database keeps for one polling trigger node, across restarts: the workflow's
 * static data, the node's `poller_state` row (its durable cursor), whether its scheduled job
 * exists, and the executions committed and not yet run (status 'new').
 */
export class PollDatabase {
	/** the `poller_state` row's cursor; undefined: no row */
	cursorRow: IDataObject | undefined;

	/** the scheduler's job for the node: provisioned at activation, removed at deactivation */
	jobRegistered = false;

	/** executions committed with status 'new' whose process died before running them */
	readonly enqueued: INodeExecutionData[][][] = [];

	constructor(readonly store: StaticDataStore) {}

	/** PollerStateRepository.getOrCreateCursor: the row, inserted from `initial` when missing. */
	getOrCreateCursor(initial: IDataObject): IDataObject {
		this.cursorRow ??= copy(initial);
		return copy(this.cursorRow);
	}

	/** PollerStateRepository.advanceCursor (a fence that still holds its lease). */
	advanceCursor(cursor: IDataObject): void {
		if (this.cursorRow === undefined)
			throw new Error('Poller cursor row disappeared while its poll was running');
		this.cursorRow = copy(cursor);
	}
}

/**
 * Where a process dies in the hand-off after a poll with items (durable cursors):
 * - 'before-commit': after the poll, before the transaction: no cursor, no execution row.
 * - 'after-commit': the transaction committed the cursor and the execution row ('new'), and
 *   the process died before running it: n8n runs it at the next start
 *   (cli executions/enqueued-execution-recovery.service.js, regular mode).
 */
export type DeathPoint = 'before-commit' | 'after-commit';

export interface PollSeamOptions {
	/** N8N_POLLER_DURABLE_CURSORS_ENABLED with the scheduler chain it needs */
	durableCursors: boolean;
	database: PollDatabase;
	/** an execution started: its items */
	run: (items: INodeExecutionData[][]) => void;
	emitError: (error: Error) => void;
	/** read when a poll hands off its items: where the process dies, if it does */
	deathPoint: () => DeathPoint | undefined;
	/** the scheduler's poll task passes the row it read (PollBackoffService.getState) */
	prefetchedCursor?: IDataObject;
	/** the scheduler's poll task: the time a poll may take (PollContext's default otherwise) */
	pollBudgetMs?: number;
}

type Staged = { migrated: false } | { migrated: true; snapshot: IDataObject; seed: IDataObject };

/**
 * The cli's TriggerExecutionContextFactory.getExecutePollFunctions (n8n 2.41.1,
 * workflows/triggers/trigger-execution-context.factory.js), with PollCursorService
 * (poll-cursor.service.js) and WorkflowExecutionService.runPolledWorkflow: the PollContext a
 * poll node gets, with the same `__runPoll`, `__commitCursor`, `resolveNodeStaticData` and
 * `__emit`.
 *
 * - `__runPoll` resolves the cursor: durable cursors on, the row (created from the node's
 *   static data when missing); off, the row only if one exists. With a cursor the node's
 *   static data is a copy of it for this poll (staged), else the Workflow's own.
 * - `__emit`: a staged copy that changed is committed in one transaction with the execution
 *   row; else static data is saved (when changed) and the execution started, as without it.
 * - `__commitCursor`: a staged copy that changed is committed alone (a poll with no items).
 */
export function pollFunctionsWithCursors(
	workflow: Workflow,
	node: INode,
	additionalData: IWorkflowExecuteAdditionalData,
	activation: WorkflowActivateMode,
	options: PollSeamOptions,
): PollContext {
	const { database } = options;
	const stagedStore = new AsyncLocalStorage<Staged>();
	const resolveCursor = (nodeStaticData: IDataObject): IDataObject | undefined => {
		if (!options.durableCursors) return database.cursorRow && copy(database.cursorRow);
		if (options.prefetchedCursor !== undefined) return copy(options.prefetchedCursor);
		return database.getOrCreateCursor(nodeStaticData);
	};
	const runPoll = async <T>(poll: () => Promise<T>): Promise<T> => {
		const cursor = resolveCursor(workflow.getStaticData('node', node));
		const staged: Staged =
			cursor === undefined
				? { migrated: false }
				: { migrated: true, snapshot: copy(cursor), seed: cursor };
		return await stagedStore.run(staged, poll);
	};
	const takeStagedCursor = (): IDataObject | null => {
		const staged = stagedStore.getStore();
		if (!staged?.migrated || isDeepStrictEqual(staged.snapshot, staged.seed)) return null;
		const cursor = copy(staged.snapshot);
		staged.seed = cursor;
		return cursor;
	};
	const emit = (data: INodeExecutionData[][]) => {
		const cursor = takeStagedCursor();
		const death = options.deathPoint();
		if (death === 'before-commit') return;
		if (cursor === null && death === 'after-commit')
			throw new Error('without a staged cursor n8n writes static data and the execution apart');
		database.store.saveIfChanged(workflow);
		if (cursor === null) return options.run(data);
		database.advanceCursor(cursor); // one transaction: the cursor and the execution row
		if (death === 'after-commit') database.enqueued.push(data);
		else options.run(data);
	};
	const commitCursor = async () => {
		const cursor = takeStagedCursor();
		if (cursor !== null) database.advanceCursor(cursor);
	};
	const resolveNodeStaticData = () => {
		const staged = stagedStore.getStore();
		if (staged === undefined)
			throw new Error(
				'Poll node read its static data outside of a poll; __runPoll was not entered',
			);
		return staged.migrated ? staged.snapshot : workflow.getStaticData('node', node);
	};
	return new PollContext(
		workflow,
		node,
		additionalData,
		'trigger',
		activation,
		emit,
		options.emitError,
		commitCursor,
		runPoll,
		resolveNodeStaticData,
		options.pollBudgetMs === undefined ? undefined : () => options.pollBudgetMs ?? 0,
	);
}

function copy(data: IDataObject): IDataObject {
	return JSON.parse(JSON.stringify(data)) as IDataObject;
}
