/** Reading n8n's run data (IRunExecutionData) of an execution fetched through the REST API. */
import { isRecord } from './http';
import type { ExecutionDetail, ExecutionSummary, N8nRest } from './n8n-rest';
import { pollUntil } from './wait';

/** The JSON of every item a node output on its first output, over all its runs. */
export function nodeOutput(
	execution: ExecutionDetail,
	nodeName: string,
): Array<Record<string, unknown>> {
	const resultData = isRecord(execution.data.resultData) ? execution.data.resultData : {};
	const runData = isRecord(resultData.runData) ? resultData.runData : {};
	const runs = runData[nodeName];
	if (!Array.isArray(runs)) return [];
	const items: Array<Record<string, unknown>> = [];
	for (const run of runs) {
		const main =
			isRecord(run) && isRecord(run.data) && Array.isArray(run.data.main) ? run.data.main : [];
		const first: unknown = main[0];
		if (!Array.isArray(first)) continue;
		for (const item of first) if (isRecord(item) && isRecord(item.json)) items.push(item.json);
	}
	return items;
}

/** The names of the nodes that ran in the execution (the keys of its run data). */
export function nodesRun(execution: ExecutionDetail): string[] {
	const resultData = isRecord(execution.data.resultData) ? execution.data.resultData : {};
	return isRecord(resultData.runData) ? Object.keys(resultData.runData) : [];
}

/** The error message of a failed execution (workflow level or the first failing node), if any. */
export function executionError(execution: ExecutionDetail): string | undefined {
	const resultData = isRecord(execution.data.resultData) ? execution.data.resultData : {};
	if (isRecord(resultData.error)) {
		const { message, description } = resultData.error;
		return [message, description].filter((part) => typeof part === 'string' && part).join(' — ');
	}
	const runData = isRecord(resultData.runData) ? resultData.runData : {};
	for (const [node, runs] of Object.entries(runData)) {
		if (!Array.isArray(runs)) continue;
		for (const run of runs) {
			if (isRecord(run) && isRecord(run.error)) return `${node}: ${String(run.error.message)}`;
		}
	}
	return undefined;
}

const DONE = new Set(['success', 'error', 'crashed', 'canceled']);

/** Waits until the workflow has at least `count` executions and all of them are done. */
export async function waitForExecutions(
	rest: N8nRest,
	workflowId: string,
	count: number,
	timeoutMs: number,
): Promise<ExecutionSummary[]> {
	return await pollUntil(
		async () => {
			const executions = await rest.listExecutions(workflowId);
			if (executions.length < count) return undefined;
			return executions.every((execution) => DONE.has(execution.status)) ? executions : undefined;
		},
		{
			timeoutMs,
			intervalMs: 300,
			what: `${count} finished execution(s) of workflow ${workflowId}`,
		},
	);
}
