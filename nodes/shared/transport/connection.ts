import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { CredentialProblemError } from './credentialProblem';

export const CREDENTIAL_TYPE = 'partnerLeadsApi';

export type EnvironmentName = 'production' | 'nonProduction';

/** What the transport needs from the credential to address the service. */
export interface ServiceConnection {
	environment: EnvironmentName;
	/** API base address of the selected environment, no trailing slash */
	apiBaseUrl: string;
	/** the override, or the environment's API base address (the service checks it) */
	audience: string;
	tokenUrl: string;
	companyId: string;
	clientId: string;
}

const COMPANY_ID_LENGTH = 24;

/** The credential's field that holds each environment's API base address, as the editor names it. */
export const BASE_ADDRESS_FIELDS: Record<EnvironmentName, string> = {
	production: 'Production API Base Address',
	nonProduction: 'Non-Production API Base Address',
};

function trimTrailingSlashes(value: string): string {
	return value.trim().replace(/\/+$/, '');
}

function readString(credentials: ICredentialDataDecryptedObject, name: string): string {
	const value = credentials[name];
	return typeof value === 'string' ? value.trim() : '';
}

/** 127.0.0.0/8, ::1 and localhost: traffic that never leaves the machine (the local simulator). */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
	if (host === 'localhost' || host === '::1') return true;
	const octets = host.split('.');
	return (
		octets.length === 4 &&
		octets[0] === '127' &&
		octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
	);
}

/** Secrets travel only over HTTPS; plain http only to this machine itself. */
export function plainHttpProblem(
	address: string,
	fieldLabel: string,
): CredentialProblemError | undefined {
	const url = URL.canParse(address) ? new URL(address) : undefined;
	if (!url || url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
	return new CredentialProblemError(
		`${fieldLabel} "${url.origin}" uses plain http://, which would send the credential's secrets unencrypted.`,
		`Use its https:// address (e.g. https://${url.host}); plain http is only allowed for this machine itself (localhost, 127.0.0.1, ::1).`,
	);
}

function assertHttpUrl(value: string, fieldLabel: string): void {
	const url = URL.canParse(value) ? new URL(value) : undefined;
	if (!url) {
		throw new CredentialProblemError(
			`'${fieldLabel}' "${value}" is not a valid address.`,
			'Enter it with https://, e.g. https://api.example.com',
		);
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new CredentialProblemError(
			`'${fieldLabel}' is not a web address.`,
			'Enter it with https://, e.g. https://api.example.com',
		);
	}
	const plainHttp = plainHttpProblem(value, `'${fieldLabel}'`);
	if (plainHttp) throw plainHttp;
}

/** Reads and checks the credential, so a typo gets a message naming the field. */
export function connectionFromCredentials(
	credentials: ICredentialDataDecryptedObject,
): ServiceConnection {
	const environment: EnvironmentName =
		credentials.environment === 'nonProduction' ? 'nonProduction' : 'production';
	const baseFieldLabel = BASE_ADDRESS_FIELDS[environment];
	const apiBaseUrl = trimTrailingSlashes(
		readString(credentials, environment === 'production' ? 'baseUrl' : 'devBaseUrl'),
	);
	if (!apiBaseUrl) {
		throw new CredentialProblemError(
			`'${baseFieldLabel}' is empty.`,
			'Fill it in the credential, or choose the other environment.',
		);
	}
	assertHttpUrl(apiBaseUrl, baseFieldLabel);

	const authUrl = trimTrailingSlashes(readString(credentials, 'authUrl'));
	if (!authUrl)
		throw new CredentialProblemError(
			"'Token Issuer Address' is empty.",
			'Fill it in the credential.',
		);
	assertHttpUrl(authUrl, 'Token Issuer Address');

	const companyId = readString(credentials, 'companyId');
	if (companyId.length !== COMPANY_ID_LENGTH) {
		throw new CredentialProblemError(
			`'Company ID' has ${companyId.length} characters instead of ${COMPANY_ID_LENGTH}.`,
			`Copy the ${COMPANY_ID_LENGTH}-character 'Company ID' that the provider gave you with the API addresses.`,
		);
	}
	const clientId = readString(credentials, 'clientId');
	if (!clientId)
		throw new CredentialProblemError(
			"'Client ID' is empty.",
			'Copy it from Portal Setup > Other > Developer / API Keys.',
		);

	const audienceOverride = trimTrailingSlashes(readString(credentials, 'audience'));
	return {
		environment,
		apiBaseUrl,
		audience: audienceOverride || apiBaseUrl,
		tokenUrl: `${authUrl}/oauth/token`,
		companyId,
		clientId,
	};
}

/** Secrets of a credential, so error texts can be scrubbed of them. */
export function secretsOf(credentials: ICredentialDataDecryptedObject): string[] {
	return ['clientSecret', 'accessToken']
		.map((name) => credentials[name])
		.filter((value): value is string => typeof value === 'string' && value.length >= 4);
}
