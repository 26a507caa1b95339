import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemRequestOptions } from '../../../shared/transport/request';
import { AdaptiveLimiter, type LimiterSettings } from '../../helpers/adaptiveLimiter';
import { AGENT_RETRY_HINT, runsAsAgentTool } from '../../helpers/agentTool';
import type { ItemSteps } from './types';

export const MAX_PARALLEL_REQUESTS = 32;

/** "Parallel Requests" when it is not set, or set to this: the node chooses. */
export const AUTOMATIC_PARALLEL_REQUESTS = 0;

/** Start at 8, grow fast until the first 429 or 5xx, then slowly: finds the service's pace fast. */
const AUTOMATIC: LimiterSettings = { max: MAX_PARALLEL_REQUESTS, initial: 8, slowStart: true };

/** Errors carry the item they belong to, so n8n shows it and the user finds the input. */
function withItemIndex(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(context.getNode(), error instanceof Error ? error : String(error), {
		itemIndex,
	});
}

/** Errors become items with "Continue On Fail", and for an agent (thrown ones reach it empty). */
function errorsAsItems(context: IExecuteFunctions): boolean {
	return context.continueOnFail() || runsAsAgentTool(context);
}

function errorItem(
	context: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	if (runsAsAgentTool(context)) json.hint = AGENT_RETRY_HINT;
	return { json, pairedItem: { item: itemIndex } };
}

function limiterSettings(context: IExecuteFunctions): LimiterSettings {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const wanted = Math.floor(Number(options.parallelRequests ?? AUTOMATIC_PARALLEL_REQUESTS));
	if (!Number.isFinite(wanted) || wanted <= AUTOMATIC_PARALLEL_REQUESTS) return AUTOMATIC;
	return { max: Math.min(MAX_PARALLEL_REQUESTS, wanted) };
}

function outputOf(json: IDataObject | IDataObject[], itemIndex: number): INodeExecutionData[] {
	return (Array.isArray(json) ? json : [json]).map((entry) => ({
		json: entry,
		pairedItem: { item: itemIndex },
	}));
}

/** Runs the steps (ItemSteps): every item is checked first; output keeps item order. */
export async function runItemLoop<T>(
	this: IExecuteFunctions,
	itemCount: number,
	steps: ItemSteps<T>,
): Promise<INodeExecutionData[]> {
	const errorsBecomeItems = errorsAsItems(this);
	const results = new Array<INodeExecutionData[]>(itemCount);
	const prepared = new Map<number, T>();
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			prepared.set(itemIndex, steps.prepare(itemIndex));
		} catch (caught) {
			const error = withItemIndex(this, caught, itemIndex);
			if (!errorsBecomeItems) throw error;
			results[itemIndex] = [errorItem(this, error, itemIndex)];
		}
	}
	if (prepared.size > 0 && steps.beforeRequests) await steps.beforeRequests();

	const limiter = new AdaptiveLimiter(steps.parallel ? limiterSettings(this) : 1);
	const running = new Set<Promise<void>>();
	// An object: TypeScript misses writes made in the tasks and would narrow a `let` to undefined.
	const failed: { first?: { itemIndex: number; error: NodeApiError | NodeOperationError } } = {};

	for (const [itemIndex, value] of prepared) {
		const generation = await limiter.acquire();
		if (failed.first) {
			limiter.release();
			break;
		}
		const request: ItemRequestOptions = {
			itemIndex,
			onRateLimited: (retryAfterMs) => limiter.onRateLimited(generation, retryAfterMs),
			onServerError: () => limiter.onServerError(generation),
		};
		const task = (async () => {
			try {
				results[itemIndex] = outputOf(await steps.run(itemIndex, value, request), itemIndex);
				limiter.onSuccess();
			} catch (caught) {
				const error = withItemIndex(this, caught, itemIndex);
				if (errorsBecomeItems) {
					results[itemIndex] = [errorItem(this, error, itemIndex)];
				} else if (!failed.first || itemIndex < failed.first.itemIndex) {
					failed.first = { itemIndex, error };
				}
			} finally {
				limiter.release();
			}
		})();
		running.add(task);
		void task.finally(() => running.delete(task));
	}
	await Promise.all(running);
	if (failed.first) throw failed.first.error;
	return results.flatMap((output) => output ?? []);
}

/** A failure before any item was sent: one error item each with "Continue On Fail", else thrown. */
export function runFailure(
	this: IExecuteFunctions,
	caught: unknown,
	itemCount: number,
): INodeExecutionData[] {
	const error = withItemIndex(this, caught, 0);
	if (!errorsAsItems(this) || itemCount === 0) throw error;
	return Array.from({ length: itemCount }, (_item, itemIndex) => errorItem(this, error, itemIndex));
}
