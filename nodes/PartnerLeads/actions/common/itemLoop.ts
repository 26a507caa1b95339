import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ItemRequestOptions } from '../../../shared/transport/request';
import { AdaptiveLimiter } from '../../helpers/adaptiveLimiter';
import type { LimiterSettings } from '../../helpers/adaptiveLimiter';
import { AGENT_RETRY_HINT, runsAsAgentTool } from '../../helpers/agentTool';
import type { ItemSteps } from './types';

export const MAX_PARALLEL_REQUESTS = 32;

/** "Parallel Requests" when it is not set, or set to this: the node chooses. */
export const AUTOMATIC_PARALLEL_REQUESTS = 0;

/**
 * The automatic setting: start with a few requests in flight, add one per answered request
 * until the service first answers 429 or 5xx, then grow slowly; never more than the cap.
 * A distant service is then as fast as its distance allows, and a rate-limited one is kept
 * at its limit instead of being flooded.
 */
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

/**
 * Failed items become error items with "Continue On Fail", and always when the node runs as an
 * AI Agent's tool: the agent reads the tool's output, so the error must be its output to let
 * the model fix its next call (a thrown error reaches the model as an empty result).
 */
function errorsAsItems(context: IExecuteFunctions): boolean {
	return context.continueOnFail() || runsAsAgentTool(context);
}

/** The item put in place of a failed one (see errorsAsItems). */
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

/** "Parallel Requests": automatic unless the user pinned a number (1 = one item at a time). */
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

/**
 * The one item loop of the action node. It owns iteration, "Continue On Fail", pairing and
 * item errors; an operation only says what its steps are (see ItemSteps):
 *
 * 1. `prepare` reads and checks every item before the first request is sent. Without
 *    "Continue On Fail" (or an agent's tool, see errorsAsItems) one bad item stops the run
 *    before anything was written, instead of halfway through; with it, the bad item becomes an
 *    error item and the others go ahead.
 * 2. `beforeRequests` runs once if any item is left; a failure there fails every item.
 * 3. `run` sends the item's requests, several items at once as the limiter allows ("Parallel
 *    Requests": automatic, or pinned by the user; fewer after a 429 or 5xx, none until a
 *    Retry-After has passed). Outputs keep item order. Without "Continue On Fail" no
 *    new item starts after a failure, and the failure of the lowest item index is thrown, as
 *    a sequential run would.
 */
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
	// An object, not a `let`: TypeScript does not see assignments made inside the item tasks,
	// and would narrow a `let` to `undefined` at the checks after the loop.
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

/**
 * What stopped the whole run before any item was sent (the schema could not be read, a wrong
 * Match Field): with "Continue On Fail" every item says so, without it the run stops.
 */
export function runFailure(
	this: IExecuteFunctions,
	caught: unknown,
	itemCount: number,
): INodeExecutionData[] {
	const error = withItemIndex(this, caught, 0);
	if (!errorsAsItems(this) || itemCount === 0) throw error;
	return Array.from({ length: itemCount }, (_item, itemIndex) => errorItem(this, error, itemIndex));
}
