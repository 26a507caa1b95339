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
