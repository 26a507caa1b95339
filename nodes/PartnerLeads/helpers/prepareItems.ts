import type { IExecuteFunctions, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { withItemIndex } from './itemRunner';

export type Prepared<T> =
	| { ok: true; value: T }
	| { ok: false; error: NodeApiError | NodeOperationError };

/**
 * Reads and checks every item before the first request is sent. Without "Continue On Fail"
 * one bad item stops the run before anything was written, instead of halfway through;
 * with it, the bad items become error items and the others go ahead.
 */
export function prepareItems<T>(
	context: IExecuteFunctions,
	itemCount: number,
	prepare: (itemIndex: number) => T,
): Array<Prepared<T>> {
	const prepared: Array<Prepared<T>> = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			prepared.push({ ok: true, value: prepare(itemIndex) });
		} catch (caught) {
			const error = withItemIndex(context, caught, itemIndex);
			if (!context.continueOnFail()) throw error;
			prepared.push({ ok: false, error });
		}
	}
	return prepared;
}

/** The prepared value of an item, or its preparation error thrown where the item runs. */
export function preparedValue<T>(prepared: Prepared<T>): T {
	if (!prepared.ok) throw prepared.error;
	return prepared.value;
}
