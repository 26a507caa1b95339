import type {
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	ResourceMapperValue,
} from 'n8n-workflow';
import { LoadOptionsContext } from 'n8n-core';

import { READ_AHEAD_PAGES } from '../../nodes/shared/transport/paging';
import type { N8nHarness, NodeRun } from '../harness/harness';
import { ACTION_NODE_TYPE } from '../harness/harness';
import type { Simulator } from '../simulator/types';

/** Shared builders for the PartnerLeads node tests: parameters as n8n stores them. */

export function mapper(
	value: IDataObject | null,
	mappingMode: 'defineBelow' | 'autoMapInputData' = 'defineBelow',
): ResourceMapperValue {
	// Test values may hold lists and numbers, as expressions in a real workflow produce them.
	const stored = {
		mappingMode,
		value,
		matchingColumns: [],
		schema: [],
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	};
	return stored as unknown as ResourceMapperValue;
}

/** Lead > Get of the lead whose ID is the item's `id` (Lead "By ID", an expression). */
export function getLeadOfItem(extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'lead',
		operation: 'get',
		leadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		...extra,
	};
}

/** Create or Upsert of every incoming item's fields as they are, by e-mail, for the default credit. */
export function pushParameters(
	sim: Simulator,
	operation: 'create' | 'upsert',
	parallelRequests: number,
): INodeParameters {
	return {
		resource: 'lead',
		operation,
		matchField: 'email',
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0].id,
		leadFields: mapper(null, 'autoMapInputData'),
		options: { parallelRequests },
	} as unknown as INodeParameters;
}

/** Lead Fields mapped from the test item's `first`, `last`, `email` keys by expressions. */
export const personFromItem: IDataObject = {
	firstName: '={{ $json.first }}',
	lastName: '={{ $json.last }}',
	email: '={{ $json.email }}',
};

export function person(n: number, domain = 'example.com'): IDataObject {
	return { first: `Ada${n}`, last: 'Lovelace', email: `ada${n}@${domain}` };
}

export function people(count: number, domain = 'example.com'): IDataObject[] {
	return Array.from({ length: count }, (_, n) => person(n, domain));
}

export function credit(sim: Simulator): INodeParameters {
	return {
		partnerOrganizationId: sim.defaultPartnerOrganization.id,
		agentId: sim.defaultAgents[0].id,
	};
}

export function createParameters(
	sim: Simulator,
	value: IDataObject = personFromItem,
	extra: INodeParameters = {},
): INodeParameters {
	return {
		resource: 'lead',
		operation: 'create',
		...credit(sim),
		leadFields: mapper(value),
		...extra,
	} as INodeParameters;
}

export function routeCount(sim: Simulator, route: string): number {
	return sim.control.stats().byRoute[route] ?? 0;
}

export function jsonOf(run: NodeRun): IDataObject[] {
	return run.items.map((item) => item.json);
}

export function pairedIndexes(run: NodeRun): number[] {
	return run.items.map((item) => {
		const paired = item.pairedItem;
		if (paired === undefined || typeof paired === 'number' || Array.isArray(paired))
			throw new Error('unexpected pairedItem');
		return paired.item;
	});
}

export function errorItemIndex(run: NodeRun): unknown {
	return (run.error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex;
}

/**
 * Calls one of the node's editor methods the way n8n's backend does
 * (DynamicNodeParametersService): a LoadOptionsContext over a real Workflow.
 */
export function editorContext(
	harness: N8nHarness,
	parameters: INodeParameters,
	path: string,
	type = ACTION_NODE_TYPE,
) {
	const node: INode = {
		id: 'partner-leads',
		name: 'Partner Referral Service',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { partnerLeadsApi: harness.credential },
	};
	const workflow = harness.workflow([node], {});
	// the editor sends the node's current parameters with every list search
	const context = new LoadOptionsContext(
		workflow,
		node,
		{ ...harness.additionalData(), currentNodeParameters: parameters },
		path,
	);
	const nodeType = harness.nodeTypes.getByNameAndVersion(type, 1) as INodeType;
	return { context, methods: nodeType.methods ?? {} };
}

/** Records per page the simulator's personality answers when the client asks for `asked`. */
export function pageSizeOf(sim: Simulator, asked = 100): number {
	return Math.min(asked, sim.personality.listPageCap ?? 100);
}

/**
 * List requests a complete reading of `total` records costs with pages of `pageSize`: the
 * first page, then pages that each read one record of the page before again (the anchor that
 * shows whether the list shifted), then, unless the service says where the list ends, one
 * request that finds nothing after the last record.
 */
export function listRequestsFor(sim: Simulator, total: number, pageSize = pageSizeOf(sim)): number {
	const endsWithHint = sim.personality.listHints !== 'none' && sim.personality.bodies === 'wrapped';
	return requestsToRead(total, pageSize) + (endsWithHint || total === 0 ? 0 : 1);
}

/**
 * A listing reads pages ahead (READ_AHEAD_PAGES at most): it sends the requests it would send
 * one by one, and at most that many more, past the end of the list or of what was wanted.
 */
export function expectListRequests(actual: number, oneByOne: number): void {
	expect(actual).toBeGreaterThanOrEqual(oneByOne);
	expect(actual).toBeLessThanOrEqual(oneByOne + READ_AHEAD_PAGES);
}

/**
 * List requests that read the first `count` records, walked page by page as the rule says:
 * every page after the first starts at the last record already read (the anchor), so it
 * brings at most `pageSize - 1` new ones.
 */
export function requestsToRead(count: number, pageSize: number): number {
	let requests = 0;
	for (let read = 0; requests === 0 || read < count; requests++) {
		const anchor = requests === 0 ? 0 : 1;
		read += pageSize - anchor;
	}
	return requests;
}

/** The least a reading can cost: pages of records, and an empty page unless a hint ends the list. */
export function leastListRequestsFor(
	sim: Simulator,
	total: number,
	pageSize = pageSizeOf(sim),
): number {
	const endsWithHint = sim.personality.listHints !== 'none' && sim.personality.bodies === 'wrapped';
	return Math.max(1, Math.ceil(total / pageSize)) + (endsWithHint || total === 0 ? 0 : 1);
}

/** Lead ids in the order the service lists them (its personality may list newest first). */
export function listedLeadIds(sim: Simulator): string[] {
	const ids = sim.control.listLeads().map((lead) => lead.id);
	return sim.personality.listOrder === 'newestFirst' ? ids.reverse() : ids;
}

/** The schema endpoint's answer as the service sends it (without its envelope, if it has one). */
export async function schemaAsServed(sim: Simulator): Promise<IDataObject> {
	const tokenAnswer = await fetch(`${sim.authUrl}/oauth/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			grant_type: 'client_credentials',
			client_id: sim.defaultKey.clientId,
			client_secret: sim.defaultKey.clientSecret,
			audience: sim.url,
		}),
	});
	const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
	const answer = await fetch(`${sim.url}/1.0/api/company/${sim.companyId}/schema/lead`, {
		headers: { authorization: `Bearer ${token}` },
	});
	const body = (await answer.json()) as IDataObject;
	return sim.personality.bodies === 'wrapped' ? (body.data as IDataObject) : body;
}
