import * as creditSearch from './creditSearch';
import * as leadSearch from './listSearch';
import * as subscriptionSearch from './subscriptionSearch';

export const listSearch = {
	searchLeads: leadSearch.searchLeads,
	searchPartnerOrganizations: creditSearch.searchPartnerOrganizations,
	searchAgents: creditSearch.searchAgents,
	searchSubscriptions: subscriptionSearch.searchSubscriptions,
};
export * as loadOptions from './loadOptions';
export * as resourceMapping from './resourceMapping';
export * as credentialTest from './credentialTest';
