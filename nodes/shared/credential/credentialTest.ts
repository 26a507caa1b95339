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

/** In code: n8n 1.x loses a failed declarative test's HTTP status and shows a generic error. */

function failed(message: string, secrets: string[]): INodeCredentialTestResult {
	return { status: 'Error', message: redactSecrets(message, secrets) };
}

/** Credential tests get only the legacy `request` helper (n8n 1.x and 2.x), not `httpRequest`. */
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
