import { runItemLoop } from './itemLoop';
import type { ItemSteps, OperationExecute, OperationSteps } from './types';

/** `T` is inferred from `prepare`, so a `run` taking anything else fails to compile. */
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
