import * as leadSearch from './leadSearch';
import * as partnerAndAgentSearch from './partnerAndAgentSearch';
import * as subscriptionSearch from './subscriptionSearch';

export const listSearch = {
	searchLeads: leadSearch.searchLeads,
	searchPartnerOrganizations: partnerAndAgentSearch.searchPartnerOrganizations,
	searchAgents: partnerAndAgentSearch.searchAgents,
	searchSubscriptions: subscriptionSearch.searchSubscriptions,
};
export * as loadOptions from './loadOptions';
export * as resourceMapping from './resourceMapping';
export * as credentialTest from './credentialTest';
