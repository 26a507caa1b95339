import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { plainHttpProblem } from '../nodes/shared/transport/connection';
import { accessTokenFor } from '../nodes/shared/transport/token';

/**
 * OAuth 2.0 client credentials for the Partner Referral Service.
 *
 * The token exchange is a JSON request with an `audience`, which n8n's generic OAuth2
 * credential cannot send, so the token is fetched in `preAuthentication` and kept in the
 * hidden expirable `accessToken` field. n8n stores it with the credential and calls
 * `preAuthentication` again only when the field is empty or a request answered 401; the
 * transport also empties it for one request when the token is near expiry
 * (`renewalDueAt`), so it is renewed before it fails. Executions that read the credential
 * before another one's new token was saved get the token this process was issued
 * (`nodes/shared/transport/tokenCache.ts`): one token request per process and token
 * lifetime, never per item or execution, also when executions start or renew together.
 *
 * The Test button runs `partnerLeadsApiTest` (the nodes name it with `testedBy`), which gives
 * the same message for each failure on every n8n line.
 */
export class PartnerLeadsApi implements ICredentialType {
	name = 'partnerLeadsApi';

	displayName = 'Partner Referral Service API';

	icon: Icon = {
		light: 'file:../icons/partnerLeads.svg',
		dark: 'file:../icons/partnerLeads.dark.svg',
	};

	documentationUrl = 'https://github.com/partner-leads/n8n-nodes-partner-leads#credentials';

	/** Lets users call endpoints the nodes do not cover from n8n's HTTP Request node. */
	httpRequestNode = {
		name: 'Partner Referral Service',
		docsUrl:
			'https://github.com/partner-leads/n8n-nodes-partner-leads#call-other-endpoints-with-the-http-request-node',
		apiBaseUrlPlaceholder: 'https://api.example.com/1.0/api/company/{companyId}/leads',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'production' },
				{ name: 'Non-Production', value: 'nonProduction' },
			],
			default: 'production',
			description:
				'Which environment of the service to use. Each has its own API base address and token audience.',
		},
		{
			displayName: 'Production API Base Address',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.example.com',
			required: true,
			displayOptions: { show: { environment: ['production'] } },
			description:
				'The production API base address from the portal: the address alone, the node adds the API version and paths',
		},
		{
			displayName: 'Non-Production API Base Address',
			name: 'devBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://api.sandbox.example.com',
			required: true,
			displayOptions: { show: { environment: ['nonProduction'] } },
			description:
				'The non-production API base address from the portal: the address alone, the node adds the API version and paths',
		},
		{
			displayName: 'Token Issuer Address',
			name: 'authUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://auth.example.com',
			required: true,
			description:
				'The address of the token issuer from the portal. The credential gets its access tokens there.',
		},
		{
			displayName: 'Company ID',
			name: 'companyId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 64b7f0c2a1d3e4f5a6b7c8d9',
			description: 'The 24-character portal identifier',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'From Portal Setup > Other > Developer / API Keys',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Shown once when the key is created. If it is lost, revoke the key and create a new one.',
		},
		{
			displayName: 'Audience',
			name: 'audience',
			type: 'string',
			default: '',
			description:
				'Leave empty to use the API base address of the selected environment. Set it only if the service told you to use another audience.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			// When the stored token is near expiry, the nodes renew it before using it.
			displayName: 'Renewal Due At',
			name: 'renewalDueAt',
			type: 'hidden',
			default: 0,
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const { accessToken, renewAfter } = await accessTokenFor(this, credentials);
		return { accessToken, renewalDueAt: renewAfter };
	}

	/**
	 * Sets the bearer header in code rather than with a `{{$credentials.accessToken}}`
	 * expression: n8n evaluates such an expression on every request, which cost 15-30% of
	 * the request rate in the benchmarks.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// The token never goes over plain http to another machine, whoever builds the URL
		// (our nodes, the credential test, n8n's HTTP Request node).
		const target = URL.canParse(requestOptions.url)
			? requestOptions.url
			: (requestOptions.baseURL ?? '');
		const plainHttp = plainHttpProblem(target, 'The request address');
		if (plainHttp) throw plainHttp;
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
			},
		};
	}
}
