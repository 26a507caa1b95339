import { type INodeExecutionData, type IPollFunctions, NodeOperationError } from 'n8n-workflow';

import type { ListedLead } from '../shared/changes/listedLead';
import { outputFor } from '../shared/changes/output';
import { fetchesFullLead } from '../shared/changes/watchedFields';
import { readSlice } from './pollListing';
import { PollWatch } from './pollWatch';

/** Requests "Fetch Test Event" sends to the list: a sample, not the whole portal. */
export const SAMPLE_LIST_REQUESTS = 2;

/** "Fetch Test Event": the newest of the first leads listed, read only. */
export async function newestLeadSample(context: IPollFunctions): Promise<INodeExecutionData[][]> {
	const { leads } = await readSlice(context, {
		resumeToken: undefined,
		maxRequests: SAMPLE_LIST_REQUESTS,
		endsAtMs: Infinity,
	});
	let newest: { listed: ListedLead; version: number } | undefined;
	for (const listed of leads) {
		const version = listed.version ?? 0;
		if (!newest || version > newest.version) newest = { listed, version };
	}
	if (!newest) {
		throw new NodeOperationError(context.getNode(), 'The portal has no leads to show as a sample', {
			description:
				'Create a lead in the Partner Referral Service (or with the Partner Referral Service node), then fetch the test event again.',
		});
	}
	const { listed, version } = newest;
	const created = listed.createdMs;
	const { json } = await outputFor(
		context,
		{
			lead: listed.lead,
			id: listed.id,
			topic: created !== undefined && created >= version ? 'lead/create' : 'lead/update',
			version,
		},
		fetchesFullLead(context),
		'polled',
	);
	await PollWatch.read(context, context.getWorkflowStaticData('node')).addSampleChanges(
		listed.id,
		json,
	);
	return [[{ json }]];
}
