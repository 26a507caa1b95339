import { runItemLoop } from './itemLoop';
import type { ItemSteps, OperationExecute, OperationSteps } from './types';

/**
 * Every operation is written through this: `T` is inferred from `prepare`, so the compiler
 * rejects a `run` that takes something else (test/types/operation-contract.test.ts proves
 * it). The returned function hides `T` from the router, which only needs the output items.
 */
export function defineOperation<T>(steps: OperationSteps<T>): OperationExecute {
	// `.call` would widen the generic loop to ItemSteps<unknown>; this keeps it at T.
	const loop: (
		this: ThisParameterType<OperationExecute>,
		count: number,
		steps: ItemSteps<T>,
	) => ReturnType<OperationExecute> = runItemLoop;
	return async function (items, run) {
		return await loop.call(this, items.length, await steps.call(this, items, run));
	};
}
