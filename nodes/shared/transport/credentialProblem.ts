/** By message: n8n 1.x drops the `cause` of an error it wraps. Bounded: the oldest go first. */
const recentProblems = new Map<string, { temporary: boolean; fix: string }>();
const RECENT_PROBLEMS_LIMIT = 200;

/** A problem the user fixes in the credential: reported as such, never retried. */
export class CredentialProblemError extends Error {
	override name = 'PartnerLeadsCredentialError';

	constructor(
		/** what happened (n8n's guidelines: the fix goes in the description) */
		message: string,
		readonly fix = '',
		/** the token issuer failed for a while (429, 5xx, lost connection): nothing to fix */
		readonly temporary = false,
	) {
		super(message);
		recentProblems.delete(message);
		recentProblems.set(message, { temporary, fix });
		if (recentProblems.size > RECENT_PROBLEMS_LIMIT)
			recentProblems.delete(recentProblems.keys().next().value as string);
	}
}

/** The credential's Test button shows one text: what happened, then how to fix it. */
export function credentialProblemText(problem: CredentialProblemError): string {
	return problem.fix ? `${problem.message} ${problem.fix}` : problem.message;
}

export function isCredentialProblem(error: unknown): error is CredentialProblemError {
	return (
		error !== null &&
		typeof error === 'object' &&
		(error as { name?: unknown }).name === 'PartnerLeadsCredentialError'
	);
}

/** A credential problem that reached us re-wrapped, by its message: whether it was temporary. */
export function credentialProblemByMessage(
	message: unknown,
): { temporary: boolean; fix: string } | undefined {
	if (typeof message !== 'string') return undefined;
	return recentProblems.get(message);
}
