import type { INodeTypeDescription } from 'n8n-workflow';

import { PartnerLeadsApi } from '../../credentials/PartnerLeadsApi.credentials';
import { PartnerLeads } from '../../nodes/PartnerLeads/PartnerLeads.node';
import { PartnerLeadsPollingTrigger } from '../../nodes/PartnerLeadsPollingTrigger/PartnerLeadsPollingTrigger.node';
import { PartnerLeadsTrigger } from '../../nodes/PartnerLeadsTrigger/PartnerLeadsTrigger.node';
import {
	BASE_ADDRESS_FIELDS,
	connectionFromCredentials,
} from '../../nodes/shared/transport/connection';
import { describeFailure } from '../../nodes/shared/transport/errors';
import {
	actionToolDescription,
	credentialParameters,
	namesMatch,
	nodeParameters,
} from '../docs/node-parameters';
import { PACKAGE } from '../harness/node-types';

/**
 * Every error that names a field of the credential or a parameter of a node ("Check the
 * 'Production API Base Address' in the credential", "lower 'List Requests per Minute'") names
 * one that exists, on the node that raised it. The names the code writes as text are checked by
 * test/docs/names.test.ts; here, the ones it picks at run time: by environment and by node.
 */

const credential = new PartnerLeadsApi();
const credentialFields = credentialParameters(credential).map(
	({ property }) => property.displayName,
);

const NODES: Array<[string, INodeTypeDescription]> = [
	[`${PACKAGE}.partnerLeads`, new PartnerLeads().description],
	[`${PACKAGE}.partnerLeadsTool`, actionToolDescription()],
	[`${PACKAGE}.partnerLeadsTrigger`, new PartnerLeadsTrigger().description],
	[`${PACKAGE}.partnerLeadsPollingTrigger`, new PartnerLeadsPollingTrigger().description],
];

/** 'Name' in single quotes: how the messages name a field. */
function quotedNames(text: string): string[] {
	return [...text.matchAll(/'([A-Z][A-Za-z0-9 /()-]*)'/g)].map((match) => match[1]);
}

function missing(names: string[], fields: string[]): string[] {
	return names.filter((name) => !fields.some((field) => namesMatch(name, field)));
}

it("the credential's base address fields are named as the credential shows them", () => {
	expect(missing(Object.values(BASE_ADDRESS_FIELDS), credentialFields)).toEqual([]);
});

describe.each(NODES)('errors of %s', (nodeType, description) => {
	const fields = [
		...credentialFields,
		...nodeParameters(description).map(({ property }) => property.displayName),
	];
	const failures = {
		'HTTP 429 past the waiting budget': { status: 429 },
		'no connection': { networkCode: 'ECONNREFUSED' },
		'HTTP 401': { status: 401, body: { error: { code: 'wrong_audience' } } },
		'HTTP 404 for the company': { status: 404, body: 'company not found' },
	};

	it.each(Object.entries(failures))('%s: names only fields that exist', (_what, failure) => {
		for (const environment of ['Production', 'Non-Production', '']) {
			const text = describeFailure(failure, {
				method: 'GET',
				what: 'lead list',
				environment,
				nodeType,
			}).join(' ');
			expect({ text, missing: missing(quotedNames(text), fields) }).toEqual({ text, missing: [] });
		}
	});

	it('a rate limit says what to change on this node, by a name it has', () => {
		const text = describeFailure(
			{ status: 429 },
			{ method: 'GET', what: 'x', environment: '', nodeType },
		).join(' ');
		expect(quotedNames(text).length).toBeGreaterThan(0);
	});
});

it('credential values that cannot work are named by the field that holds them', () => {
	const good = {
		environment: 'production',
		baseUrl: 'https://api.example.com',
		devBaseUrl: 'https://api.sandbox.example.com',
		authUrl: 'https://auth.example.com',
		companyId: '64b7f0c2a1d3e4f5a6b7c8d9',
		clientId: 'client',
		clientSecret: 'secret',
	};
	const broken = [
		{ baseUrl: '' },
		{ environment: 'nonProduction', devBaseUrl: 'http://api.example.com' },
		{ authUrl: 'nonsense' },
		{ companyId: 'short' },
		{ clientId: '' },
	];
	for (const change of broken) {
		let message = '';
		try {
			connectionFromCredentials({ ...good, ...change });
		} catch (error) {
			message = `${(error as Error).message} ${String((error as { fix?: string }).fix ?? '')}`;
		}
		expect({ change, named: quotedNames(message).length > 0 }).toEqual({ change, named: true });
		expect({ change, missing: missing(quotedNames(message), credentialFields) }).toEqual({
			change,
			missing: [],
		});
	}
});
