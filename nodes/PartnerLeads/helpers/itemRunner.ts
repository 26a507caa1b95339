import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { AdaptiveLimiter } from './adaptiveLimiter';

export const MAX_PARALLEL_REQUESTS = 16;

/** What one item's work gets besides its index: a hook for the transport's 429 callback. */
export interface ItemPacing {
	onRateLimited: () => void;
}

export type ItemWork = (itemIndex: number, pacing: ItemPacing) => Promise<INodeExecutionData[]>;

/** Errors carry the item they belong to, so n8n shows it and the user finds the input. */
export function withItemIndex(
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

/** The item "Continue On Fail" puts in place of a failed one. */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

export function parallelRequestsOption(context: IExecuteFunctions): number {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const wanted = Number(options.parallelRequests ?? 1);
	return Number.isFinite(wanted)
		? Math.min(MAX_PARALLEL_REQUESTS, Math.max(1, Math.floor(wanted)))
		: 1;
}

/**
 * Runs `work` for every item with at most `parallelRequests` items in flight (fewer while
 * the service answers 429), and returns the outputs in item order. With "Continue On Fail"
 * a failed item becomes an error item; without it no new item starts after a failure, and
 * the failure of the lowest item index is thrown, as a sequential run would.
 */
export async function runItems(
	this: IExecuteFunctions,
	itemCount: number,
	parallelRequests: number,
	work: ItemWork,
): Promise<INodeExecutionData[]> {
	const limiter = new AdaptiveLimiter(parallelRequests);
	const results: INodeExecutionData[][] = new Array<INodeExecutionData[]>(itemCount);
	const running = new Set<Promise<void>>();
	const continueOnFail = this.continueOnFail();
	// An object, not a `let`: it is written from inside the item tasks.
	const failed: { first?: { itemIndex: number; error: NodeApiError | NodeOperationError } } = {};

	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const generation = await limiter.acquire();
		if (failed.first) {
			limiter.release();
			break;
		}
		const pacing: ItemPacing = { onRateLimited: () => limiter.onRateLimited(generation) };
		const task = (async () => {
			try {
				const output = await work(itemIndex, pacing);
				results[itemIndex] = output.map((item) =>
					item.pairedItem ? item : { ...item, pairedItem: { item: itemIndex } },
				);
				limiter.onSuccess();
			} catch (caught) {
				const error = withItemIndex(this, caught, itemIndex);
				if (continueOnFail) {
					results[itemIndex] = [errorItem(error, itemIndex)];
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
