import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { LeadField } from '../helpers/leadSchema';

/** What the router hands every operation besides the input items. */
export interface OperationRun {
	/** the portal's lead schema, fetched at most once per run */
	leadSchema(): Promise<LeadField[]>;
}

export type OperationExecute = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: OperationRun,
) => Promise<INodeExecutionData[]>;

export type PartnerLeadsResource = 'lead' | 'leadSchema' | 'webhookSubscription';
