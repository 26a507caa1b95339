import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { HttpFailure, ServiceErrorBody } from './failure';
import { readServiceErrorBody } from './failure';
import { redactSecrets } from './redact';

/** What the request was about, so the error can say it in the user's terms. */
export interface RequestSubject {
	method: string;
	/** e.g. 'lead 65f0…', 'webhook subscription 12', 'lead schema' */
	what: string;
	environment: string;
	/** the create was not resent after an unclear failure */
	notRepeated?: boolean;
	/** the credential's Company ID, named when the service does not know it */
	companyId?: string;
}

const AUTH_CAUSES =
	"Likely causes: the access token expired and could not be renewed; the 'Audience' does not match the environment (leave it empty to use the API base address of the environment); the key was revoked in the portal (create a new key in Portal Setup > Other > Developer / API Keys); or the 'Client Secret' was sent instead of an access token (use this credential, which exchanges the secret for a token).";

function detailsText(details: ServiceErrorBody['details']): string {
	return details
		.map((detail) =>
			detail.field ? `${detail.field}: ${detail.message ?? 'invalid'}` : (detail.message ?? ''),
		)
		.filter(Boolean)
		.join('; ');
}

/** The reason of an auth refusal: the service's code, or failing one, what its message says. */
function authReason(body: ServiceErrorBody, status: number): string | undefined {
	if (body.code) return body.code;
	const said = body.message ?? '';
	if (status === 404) return /compan(y|ies)/i.test(said) ? 'company_not_found' : undefined;
	if (/client.?secret/i.test(said)) return 'client_secret_as_bearer';
	if (/revoked/i.test(said)) return 'key_revoked';
	if (/audience/i.test(said)) return 'wrong_audience';
	return undefined;
}

function authMessage(
	body: ServiceErrorBody,
	status: number,
	subject: RequestSubject,
): [string, string] {
	switch (authReason(body, status)) {
		case 'wrong_audience':
			return [
				`The access token is for another environment than ${subject.environment} (HTTP ${status})`,
				"The token audience must be the API base address of the selected environment. Leave 'Audience' empty in the credential, or set it to that address.",
			];
		case 'client_secret_as_bearer':
			return [
				`The Client Secret was sent as the bearer token (HTTP ${status})`,
				'The service wants an access token, not the secret. Use the Partner Referral Service API credential, which exchanges the secret for a token.',
			];
		case 'key_revoked':
			return [
				`This API key has been revoked (HTTP ${status})`,
				"Create a new key in Portal Setup > Other > Developer / API Keys and enter its 'Client ID' and 'Client Secret' in the credential.",
			];
		case 'company_not_found':
			return [
				subject.companyId ? `Unknown Company ID "${subject.companyId}"` : 'Unknown Company ID',
				"The service has no portal with the Company ID in the credential. Copy the 24-character 'Company ID' from the portal.",
			];
		default:
			return [
				`The service refused the credentials (HTTP ${status}) for ${subject.what}`,
				body.message ? `${AUTH_CAUSES} The service said: "${body.message}".` : AUTH_CAUSES,
			];
	}
}

export function describeFailure(failure: HttpFailure, subject: RequestSubject): [string, string] {
	if (failure.credentialProblem) {
		const fix = failure.credentialProblemFix ? `${failure.credentialProblemFix} ` : '';
		return [
			failure.credentialProblem,
			failure.credentialProblemTemporary
				? 'The token issuer did not answer properly several times in a row; the credential itself may be fine. Run the workflow again in a moment.'
				: `${fix}Open the Partner Referral Service API credential, change it, and use its Test button to check.`,
		];
	}
	const status = failure.status;
	if (status === undefined) {
		const reason = failure.networkCode ?? failure.networkMessage ?? 'no answer';
		const repeat = subject.notRepeated
			? ' The request was not sent again, because it may already have been applied: check with Lead > Get Many before running it again, to avoid a duplicate.'
			: '';
		// The network code stays out of the message: n8n replaces messages that contain one.
		return [
			'Could not reach the Partner Referral Service',
			`No connection was made (${reason}). Check the 'API Base Address' in the credential and your network.${repeat}`,
		];
	}
	const body = readServiceErrorBody(failure.body, failure.requestIdHeader);
	const serviceSaid = body.message ? `The service said: "${body.message}".` : '';
	if (status === 401 || status === 403) return authMessage(body, status, subject);
	if (status === 404) {
		if (authReason(body, status) === 'company_not_found') return authMessage(body, status, subject);
		return [
			`The ${subject.what} does not exist`,
			`Check the ID: the service has no record with it, or it was deleted. ${serviceSaid}`.trim(),
		];
	}
	if (status === 400 || status === 422) {
		const fields = detailsText(body.details);
		return [
			fields
				? `The service rejected the ${subject.what}: ${fields}`
				: `The service rejected the ${subject.what}: ${body.message ?? 'invalid request'}`,
			'Fix the listed fields in the input data or the node parameters and run again.',
		];
	}
	if (status === 429) {
		return [
			'The service kept limiting the request rate of this key (HTTP 429)',
			"The node waited and tried again within its time limit. Lower 'Parallel Requests', or spread the work over time.",
		];
	}
	if (status === 409) {
		return [
			`The service reported a conflict for the ${subject.what}`,
			serviceSaid || 'Check the data and run again.',
		];
	}
	if (status >= 500) {
		const repeat = subject.notRepeated
			? ' The request was not sent again, because it may already have been applied: check with Lead > Get Many before running it again, to avoid a duplicate.'
			: ' It was retried a few times.';
		return [
			`The Partner Referral Service could not handle the request (HTTP ${status})`,
			`${serviceSaid}${repeat} Try again later.`.trim(),
		];
	}
	return [
		`The service answered HTTP ${status} for the ${subject.what}`,
		serviceSaid || 'Check the node parameters.',
	];
}

/**
 * Turns a failed request into a NodeApiError that says what happened and how to fix it.
 * It is built from a fresh, small object: the thrown error holds the request
 * configuration (with the Authorization header), which must never reach the user.
 */
export function serviceError(
	node: INode,
	failure: HttpFailure,
	subject: RequestSubject,
	secrets: readonly string[],
	itemIndex?: number,
): NodeApiError {
	const [message, description] = describeFailure(failure, subject);
	const body =
		failure.status !== undefined
			? readServiceErrorBody(failure.body, failure.requestIdHeader)
			: undefined;
	const requestId = body?.requestId ? ` Request ID: ${body.requestId}.` : '';
	const safeMessage = redactSecrets(message, secrets);
	const safeDescription = redactSecrets(`${description}${requestId}`, secrets);
	const errorResponse: JsonObject = {
		message: safeMessage,
		serviceCode: body?.code ?? null,
		requestId: body?.requestId ?? null,
		details: (body?.details ?? []).map((detail) => ({
			field: detail.field ?? null,
			message: detail.message ?? null,
		})),
	};
	return new NodeApiError(node, errorResponse, {
		message: safeMessage,
		description: safeDescription,
		httpCode: failure.status !== undefined ? String(failure.status) : undefined,
		itemIndex,
	});
}
