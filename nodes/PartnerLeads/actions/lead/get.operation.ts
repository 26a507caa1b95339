import type { INodeProperties } from 'n8n-workflow';

import { getLead } from '../../../shared/leads';
import { simplifyLead } from '../../helpers/leadValues';
import {
	leadIdLocator,
	leadIdParameter,
	requestOptions,
	shownFor,
	simplifyOption,
} from '../common/descriptions';
import { defineOperation } from '../common/defineOperation';

const properties: INodeProperties[] = [leadIdLocator, simplifyOption, requestOptions];

export const description = shownFor('lead', 'get', properties);

export const execute = defineOperation(async function () {
	return {
		parallel: true,
		prepare: (itemIndex) => ({
			leadId: leadIdParameter(this, itemIndex),
			simplify: this.getNodeParameter('simplify', itemIndex, true) as boolean,
		}),
		run: async (
			_itemIndex,
			{ leadId, simplify }: { leadId: string; simplify: boolean },
			request,
		) => {
			const lead = await getLead.call(this, leadId, request);
			return simplify ? simplifyLead(lead) : lead;
		},
	};
});
