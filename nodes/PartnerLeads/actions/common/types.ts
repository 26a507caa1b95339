import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemRequestOptions } from '../../../shared/transport/request';
import type { LeadField } from '../../../shared/schema/leadField';

/** What the router hands every operation besides the input items. */
export interface OperationRun {
	/** the portal's lead schema, fetched at most once per run */
	leadSchema(): Promise<LeadField[]>;
}

/** Steps for runItemLoop. Properties, not methods, so `run`'s parameter is checked strictly. */
export interface ItemSteps<T> {
	/** Reads and checks one item. Runs for every item before the first request is sent. */
	prepare: (itemIndex: number) => T;
	/** Once, after the checks, if any item is left to run (e.g. list the leads to match). */
	beforeRequests?: () => Promise<void>;
	/** The item's requests; `request` carries the item index and the 429 hook for them. */
	run: (
		itemIndex: number,
		prepared: NoInfer<T>,
		request: ItemRequestOptions,
	) => Promise<IDataObject | IDataObject[]>;
	/** Whether the "Parallel Requests" option applies; otherwise items run one at a time. */
	parallel?: boolean;
}

type Operation<R> = (this: IExecuteFunctions, items: INodeExecutionData[], run: OperationRun) => R;

/** An operation reads what the whole run needs once (a failure fails every item), then gives its steps. */
export type OperationSteps<T> = Operation<Promise<ItemSteps<T>>>;

/** An operation as the router runs it: the output items (see defineOperation). */
export type OperationExecute = Operation<Promise<INodeExecutionData[]>>;

export type PartnerLeadsResource = 'lead' | 'leadSchema' | 'webhookSubscription';
