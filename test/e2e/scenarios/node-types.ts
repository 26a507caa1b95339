/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Scenario 1: n8n lists the package's node types and its credential type. */
import assert from 'node:assert/strict';

import { CREDENTIAL_TYPE } from '../lib/service';
import { ACTION_NODE_TYPE, PACKAGE_NAME, TRIGGER_NODE_TYPE } from '../workflows';
import type { Scenario } from './context';

export const nodeTypesListed: Scenario = {
	name: 'node and credential types of the package are listed by n8n',
	async run({ rest, n8n }) {
		const nodes = await rest.nodeTypeNames();
		const ours = nodes.filter((name) => name.startsWith('n8n-nodes-partner-leads.'));
		assert.ok(
			nodes.includes(ACTION_NODE_TYPE),
			`${ACTION_NODE_TYPE} not in /types/nodes.json (ours: ${ours.join(', ') || 'none'})`,
		);
		for (const type of [TRIGGER_NODE_TYPE, `${PACKAGE_NAME}.partnerLeadsPollingTrigger`])
			assert.ok(
				nodes.includes(type),
				`${type} not in /types/nodes.json (ours: ${ours.join(', ') || 'none'})`,
			);
		const credentials = await rest.credentialTypeNames();
		assert.ok(
			credentials.includes(CREDENTIAL_TYPE),
			`${CREDENTIAL_TYPE} not in /types/credentials.json`,
		);
		const problems = n8n
			.notableLogLines()
			.filter(
				(line) =>
					/n8n-nodes-partner-leads|partnerleads/i.test(line) &&
					/(error|warn|fail|skip)/i.test(line),
			);
		assert.deepEqual(problems, [], 'n8n logged problems about our package while loading it');
	},
};
