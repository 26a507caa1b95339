import type { IDataObject, INodeExecutionData, IRun } from 'n8n-workflow';

import type { Answer, Execution } from '../../test/harness/webhooks';
import { rowName } from './lead-list';

/**
 * What the demo did, as data: the printer turns it into text and the test compares it
 * with the simulator's own record. Nothing in here may ever hold a secret or a token.
 */
export interface DemoAccount {
	/** n8n-core, the engine the workflows ran in */
	engine: string;
	push: {
		rowsSubmitted: number;
		created: Array<{ row: number; name: string; id: string; email: string }>;
		/** rows that failed, with the error message n8n showed (Continue On Fail) */
		failed: Array<{ row: number; name: string; message: string; httpCode?: string }>;
		/** ids Get Many read back */
		readBack: string[];
		updated?: { id: string; name: string; value: unknown };
	};
	trigger: {
		topics: string[];
		/** subscriptions the service listed for this key while the workflow was active */
		subscriptionsWhileActive: number;
		/** HTTP requests that reached the trigger's webhook */
		deliveriesReceived: number;
		/** deliveries whose signature the trigger verified and acknowledged with 200 */
		deliveriesVerified: number;
		/** deliveries refused (bad signature, or a lead that could not be fetched yet) */
		deliveriesRefused: number;
		/** workflow executions the trigger started */
		executions: number;
		executionsByTopic: Record<string, number>;
		/** executions whose item carries the full lead */
		fullLeadsFetched: number;
		/** verified deliveries of an event already executed: acknowledged, nothing run */
		duplicatesSuppressed: number;
		/** subscriptions the service listed for this key after deactivation */
		subscriptionsLeft: number;
	};
	tokenRequests: number;
	apiRequests: number;
	durationMs: number;
}

/** The first-output items of a node in a finished run. */
export function nodeOutput(run: IRun, nodeName: string): INodeExecutionData[] {
	return run.data.resultData.runData[nodeName]?.[0]?.data?.main?.[0] ?? [];
}

/** The error that stopped a run, if one did: the demo must not print a success story then. */
export function runError(run: IRun): string | undefined {
	return run.data.resultData.error?.message;
}

function pairedRow(item: INodeExecutionData): number {
	const paired = item.pairedItem;
	if (typeof paired === 'number') return paired;
	if (Array.isArray(paired)) return paired[0]?.item ?? 0;
	return paired?.item ?? 0;
}

/** Splits Create Leads' output into created leads and the rows that failed. */
export function readCreateOutput(
	items: INodeExecutionData[],
	rows: IDataObject[],
): Pick<DemoAccount['push'], 'created' | 'failed'> {
	const created: DemoAccount['push']['created'] = [];
	const failed: DemoAccount['push']['failed'] = [];
	for (const item of items) {
		const row = pairedRow(item);
		const name = rowName(rows[row]);
		if (typeof item.json.error === 'string') {
			const httpCode = typeof item.json.httpCode === 'string' ? item.json.httpCode : undefined;
			failed.push({
				row: row + 1,
				name,
				message: item.json.error,
				...(httpCode ? { httpCode } : {}),
			});
		} else {
			created.push({
				row: row + 1,
				name,
				id: String(item.json.id),
				email: String(item.json.email ?? ''),
			});
		}
	}
	return { created, failed };
}

/** What the trigger's executions and its webhook's answers show. */
export function readTriggerActivity(
	executions: Execution[],
	answers: Answer[],
): Omit<DemoAccount['trigger'], 'topics' | 'subscriptionsWhileActive' | 'subscriptionsLeft'> {
	const items = executions.flatMap((execution) => execution.items);
	const executionsByTopic: Record<string, number> = {};
	for (const item of items) {
		const topic = String((item.json.event as IDataObject | undefined)?.topic);
		executionsByTopic[topic] = (executionsByTopic[topic] ?? 0) + 1;
	}
	const verified = answers.filter((answer) => answer.nodeRan && answer.status === 200).length;
	return {
		deliveriesReceived: answers.length,
		deliveriesVerified: verified,
		deliveriesRefused: answers.length - verified,
		executions: items.length,
		executionsByTopic,
		fullLeadsFetched: items.filter(
			(item) => typeof item.json.lead === 'object' && item.json.lead !== null,
		).length,
		duplicatesSuppressed: verified - items.length,
	};
}
