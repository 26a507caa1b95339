/**
 * Our side of every comparison: the package's nodes inside n8n-core's WorkflowExecute
 * (test/harness), with a fresh in-memory credential store per run, so each run starts
 * without a token as a newly saved credential does.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { N8nHarness } from '../test/harness/harness';
import type { NodeRun } from '../test/harness/harness';
import { mapper } from '../test/support/fixtures';
import type { RemoteSimulator } from './sim';

export const NODE_UNDER_TEST = 'Node Under Test';

export function freshHarness(sim: RemoteSimulator): N8nHarness {
	return new N8nHarness(sim.addresses());
}

/** A lead as an input item; its keys are schema field ids, so "Map Automatically" takes them. */
export function leadItem(n: number, tag: string): IDataObject {
	return {
		firstName: `Ada${n}`,
		lastName: 'Lovelace',
		email: `ada.${tag}.${n}@example.com`,
		companyName: `Analytical Engines ${n % 97}`,
		value: (n % 50) * 100,
	};
}

export function leadItems(count: number, tag: string): IDataObject[] {
	return Array.from({ length: count }, (_, n) => leadItem(n, tag));
}

/** The body the node sends for an item: the item's fields plus the credit parameters. */
export function createBody(item: IDataObject, sim: RemoteSimulator): IDataObject {
	return {
		...item,
		partnerOrganizationId: sim.info.partnerOrganizationId,
		agentId: sim.info.agentIds[0],
	};
}

/**
 * Lead > Create. `mapping` 'auto': Lead Fields maps the item's keys automatically (no
 * expressions); 'expressions': one `{{ $json.x }}` expression per field, as a user maps
 * fields by dragging them.
 */
export function createParameters(
	sim: RemoteSimulator,
	parallelRequests: number,
	mapping: 'auto' | 'expressions' = 'auto',
): INodeParameters {
	const fields = ['firstName', 'lastName', 'email', 'companyName', 'value'];
	const leadFields =
		mapping === 'auto'
			? mapper(null, 'autoMapInputData')
			: mapper(
					Object.fromEntries(fields.map((field) => [field, `={{ $json.${field} }}`])),
					'defineBelow',
				);
	return {
		resource: 'lead',
		operation: 'create',
		partnerOrganizationId: sim.info.partnerOrganizationId,
		agentId: sim.info.agentIds[0],
		leadFields,
		options: { parallelRequests },
	} as unknown as INodeParameters;
}

export function getManyParameters(): INodeParameters {
	return { resource: 'lead', operation: 'getMany', returnAll: true, filters: {}, simplify: true };
}

/** n8n's own measure of the node's run (Date.now() around execute), in ms. */
export function nodeExecutionMs(run: NodeRun): number | undefined {
	return run.run.data.resultData.runData[NODE_UNDER_TEST]?.[0]?.executionTime;
}

/** Items that Continue On Fail turned into error items. */
export function errorItems(run: NodeRun): number {
	return run.items.filter((item) => item.json.error !== undefined).length;
}
