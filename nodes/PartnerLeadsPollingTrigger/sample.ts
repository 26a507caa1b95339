import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isoTimeMs } from '../shared/isoTime';
import { outputFor } from '../PartnerLeadsTrigger/recovery/recover';
import { listForPoll } from './pollListing';

/**
 * "Fetch Test Event" (n8n calls poll() in manual mode): the newest lead, in the output shape
 * the workflow gets. Reads only; creates nothing on the service and leaves the poll state
 * alone. The list's order is not published, so the whole list is read for the newest.
 */
export async function newestLeadSample(context: IPollFunctions): Promise<INodeExecutionData[][]> {
	const { leads } = await listForPoll(context);
	let newest: { lead: IDataObject; version: number } | undefined;
	for (const lead of leads) {
		const version = isoTimeMs(lead.updatedAt) ?? isoTimeMs(lead.createdAt) ?? 0;
		if (!newest || version > newest.version) newest = { lead, version };
	}
	if (!newest) {
		throw new NodeOperationError(context.getNode(), 'The portal has no leads to show as a sample', {
			description:
				'Create a lead in the Partner Referral Service (or with the Partner Referral Service node), then fetch the test event again.',
		});
	}
	const { lead, version } = newest;
	const created = isoTimeMs(lead.createdAt);
	const fetchFullLead = context.getNodeParameter('fetchFullLead', true) !== false;
	const { json } = await outputFor(
		context,
		{
			lead,
			id: String(lead.id),
			topic: created !== undefined && created >= version ? 'lead/create' : 'lead/update',
			version,
		},
		fetchFullLead,
		'polled',
	);
	return [[{ json }]];
}
