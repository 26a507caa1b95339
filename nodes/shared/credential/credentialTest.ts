import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { connectionFromCredentials } from '../transport/connection';
import { describeFailure, readHttpFailure } from '../transport/errors';
import { redactSecrets } from '../transport/redact';
import { serviceUrl } from '../transport/request';
import { requestAccessToken } from '../transport/token';
import { credentialProblemText, isCredentialProblem } from '../transport/credentialProblem';

/**
 * The credential's Test button, in code rather than as a declarative test request: n8n 1.x
 * loses the HTTP status of a failed test request before it applies the credential's rules,
 * and shows its generic "could not be found" or "Authorization failed" instead. Here every
 * failure the service describes gets the same message on every n8n line: the values
 * checked first (no request for a typo or a plain-http address), then the token exchange,
 * then an authenticated read of the portal's lead schema.
 */

function failed(message: string, secrets: string[]): INodeCredentialTestResult {
	return { status: 'Error', message: redactSecrets(message, secrets) };
}

/**
 * n8n gives credential tests only its legacy `request` helper (CredentialTestContext, on
 * 1.x and 2.x alike), no `httpRequest`: requests here go through it, in httpRequest's terms.
 */
function asHttpRequestHelper(context: ICredentialTestFunctions): IHttpRequestHelper {
	return {
		helpers: {
			httpRequest: async (options: IHttpRequestOptions) =>
				await context.helpers.request({
					method: options.method,
					uri: options.url,
					headers: options.headers,
					body: options.body,
					json: true,
				}),
		},
	} as IHttpRequestHelper;
}

export async function partnerLeadsApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const clientSecret = typeof data.clientSecret === 'string' ? data.clientSecret : '';
	let connection;
	let accessToken;
	try {
		connection = connectionFromCredentials(data);
		accessToken = (await requestAccessToken(asHttpRequestHelper(this), data)).accessToken;
	} catch (error) {
		return failed(
			isCredentialProblem(error)
				? credentialProblemText(error)
				: `The test stopped unexpectedly: ${(error as Error).message}`,
			[clientSecret],
		);
	}
	const secrets = [clientSecret, accessToken];
	try {
		await asHttpRequestHelper(this).helpers.httpRequest({
			method: 'GET',
			url: serviceUrl(connection, 'rest', '/schema/lead'),
			headers: { Accept: 'application/json', Authorization: `Bearer ${accessToken}` },
		});
	} catch (error) {
		const failure = readHttpFailure(error);
		if (failure.status === 404) {
			// The lead schema exists in every portal: a 404 means the portal is not there.
			return failed(
				`Unknown Company ID "${connection.companyId}": the service at ${connection.apiBaseUrl} has no portal with this ID. Copy the 24-character 'Company ID' that the provider gave you with the API addresses, and check the API base address.`,
				secrets,
			);
		}
		const environment = connection.environment === 'production' ? 'Production' : 'Non-Production';
		const [message, description] = describeFailure(failure, {
			method: 'GET',
			what: 'lead schema',
			environment,
			companyId: connection.companyId,
		});
		return failed(`${message}. ${description}`, secrets);
	}
	return { status: 'OK', message: 'Connection successful: the key can read this portal' };
}
