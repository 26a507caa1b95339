import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { Simulator } from '../simulator/types';

/** Credential values that point at a simulator, as a user would paste them. */
export function simulatorCredentialData(
	sim: Simulator,
	overrides: ICredentialDataDecryptedObject = {},
): ICredentialDataDecryptedObject {
	return {
		environment: 'production',
		baseUrl: sim.url,
		devBaseUrl: sim.devUrl,
		authUrl: sim.authUrl,
		companyId: sim.companyId,
		clientId: sim.defaultKey.clientId,
		clientSecret: sim.defaultKey.clientSecret,
		audience: '',
		accessToken: '',
		...overrides,
	};
}

/**
 * An API key of its own, as a new credential has: tokens are kept per process and key, so no
 * token of it is held yet however many harnesses of this test file ran before.
 */
export function ownKey(sim: Simulator): ICredentialDataDecryptedObject {
	const { clientId, clientSecret } = sim.control.createKey({ selfServe: sim.defaultKey.selfServe });
	return { clientId, clientSecret };
}
