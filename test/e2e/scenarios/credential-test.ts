/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Scenario 2: n8n's credential test passes with the simulator's key and fails, with our message, on a wrong secret. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import { CREDENTIAL_TYPE, credentialData } from '../lib/service';
import type { Scenario } from './context';

export const credentialTest: Scenario = {
	name: 'credential test: passes against the simulator, fails with a clear message on a wrong secret',
	async run({ rest, sim, credential }) {
		const good = await rest.testCredential({
			id: credential.id,
			name: credential.name,
			type: CREDENTIAL_TYPE,
			data: credentialData(sim),
		});
		assert.equal(
			good.status,
			'OK',
			`credential test of the correct key answered ${good.status}: ${good.message}`,
		);

		const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
		const stored = await rest.createCredential(
			'e2e wrong secret',
			CREDENTIAL_TYPE,
			credentialData(sim, { clientSecret: wrongSecret }),
		);
		const bad = await rest.testCredential({
			id: stored.id,
			name: 'e2e wrong secret',
			type: CREDENTIAL_TYPE,
			data: credentialData(sim, { clientSecret: wrongSecret }),
		});
		assert.equal(
			bad.status,
			'Error',
			`credential test of a wrong secret answered ${bad.status}: ${bad.message}`,
		);
		assert.match(
			bad.message,
			/client\s*id|client\s*secret/i,
			`the failure message does not name the client id/secret: "${bad.message}"`,
		);
		assert.ok(!bad.message.includes(wrongSecret), 'the failure message contains the secret');
		assert.ok(
			!bad.message.includes(sim.defaultKey.clientSecret),
			'the failure message contains a secret',
		);
	},
};
