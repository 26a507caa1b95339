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
 * OAuth 2.0 client credentials. n8n's OAuth2 credential cannot send the JSON `audience` request,
 * so `preAuthentication` gets the token: n8n calls it when `accessToken` is empty or after a 401.
 */
export class PartnerLeadsApi implements ICredentialType {
	name = 'partnerLeadsApi';

	displayName = 'Partner Referral Service API';

	icon: Icon = {
		light: 'file:../icons/partnerLeads.svg',
		dark: 'file:../icons/partnerLeads.dark.svg',
	};

	documentationUrl =
		'https://github.com/partner-leads/n8n-nodes-partner-leads#set-up-the-credential';

	/** Lets users call endpoints the nodes do not cover from n8n's HTTP Request node. */
	httpRequestNode = {
		name: 'Partner Referral Service',
		docsUrl:
			'https://github.com/partner-leads/n8n-nodes-partner-leads/blob/main/docs/actions.md#call-other-endpoints-with-the-http-request-node',
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
				'The address of the production API, without /1.0/api: the nodes add the API version and paths. It is also the token audience for production.',
			hint: 'Given to you by the Partner Referral Service provider with API access; it is not on the portal’s Developer / API Keys page',
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
				'The address of the non-production (sandbox) API, without /1.0/api: the nodes add the API version and paths. It is also the token audience there.',
			hint: 'Given to you by the Partner Referral Service provider with non-production API access',
		},
		{
			displayName: 'Token Issuer Address',
			name: 'authUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://auth.example.com',
			required: true,
			description:
				'The address of the token issuer: the credential asks {this address}/oauth/token for its access tokens',
			hint: 'Given to you by the provider with API access, like the API base address',
		},
		{
			displayName: 'Company ID',
			name: 'companyId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 64b7f0c2a1d3e4f5a6b7c8d9',
			description: 'Your portal’s identifier: 24 characters, letters and digits',
			hint: '24 characters, e.g. 64b7f0c2a1d3e4f5a6b7c8d9. Given to you by the provider with API access, like the API base address; a wrong one is named when the credential is tested.',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description:
				'The Client ID of an API key. A portal admin on a plan with API access creates keys.',
			hint: 'In the portal: Portal Setup > Other > Developer / API Keys, create a key (e.g. named "n8n"); its Client ID is shown there',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The Client Secret of the same API key. n8n stores it encrypted and sends it only to the token issuer.',
			hint: 'Shown once, when the key is created in Portal Setup > Other > Developer / API Keys. If it is lost, revoke the key there and create a new one.',
		},
		{
			displayName: 'Audience',
			name: 'audience',
			type: 'string',
			default: '',
			description:
				'The audience the access token is asked for. Empty: the API base address of the selected environment, as the service requires.',
			hint: 'Leave empty unless the provider told you to use another audience',
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
		{
			// A hash of the key the token was issued to: a token of a key replaced since is not sent.
			displayName: 'Token Issued To',
			name: 'tokenIssuedTo',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const { accessToken, renewAfter, issuedTo } = await accessTokenFor(this, credentials);
		return { accessToken, renewalDueAt: renewAfter, tokenIssuedTo: issuedTo };
	}

	/** In code: a `{{$credentials.accessToken}}` expression cost 15-30% speed (bench/README.md). */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// No token over plain http to another machine, whoever built the URL (e.g. HTTP Request node).
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
