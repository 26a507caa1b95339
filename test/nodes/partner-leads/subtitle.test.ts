import { PartnerLeads } from '../../../nodes/PartnerLeads/PartnerLeads.node';
import * as lead from '../../../nodes/PartnerLeads/actions/lead';
import * as leadSchema from '../../../nodes/PartnerLeads/actions/leadSchema';
import * as webhookSubscription from '../../../nodes/PartnerLeads/actions/webhookSubscription';
import { ACTION_NODE_TYPE } from '../../harness/harness';
import { subtitleOf } from '../../harness/subtitle';
import { subtitleExpression } from './subtitle';

describe('PartnerLeads: the subtitle on the canvas reads as a sentence', () => {
	const subtitleFor = (resource: string, operation: string) =>
		subtitleOf(ACTION_NODE_TYPE, { resource, operation });

	it("is each operation's action, the words the node panel lists it by", () => {
		expect(subtitleFor('lead', 'upsert')).toBe('Create or update a lead');
		expect(subtitleFor('lead', 'getMany')).toBe('Get many leads');
		expect(subtitleFor('leadSchema', 'get')).toBe('Get the lead schema');
		expect(subtitleFor('webhookSubscription', 'delete')).toBe('Delete a webhook subscription');
		expect(subtitleFor('lead', 'archive')).toBe('archive');
	});

	it("keeps its table equal to the operations' actions (n8n's lint wants one literal)", () => {
		expect(new PartnerLeads().description.subtitle).toBe(
			subtitleExpression([
				...lead.description,
				...leadSchema.description,
				...webhookSubscription.description,
			]),
		);
	});
});
