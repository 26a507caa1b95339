/** Replaces every occurrence of a secret in a text, so no error or log ever carries one. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
	let result = text;
	for (const secret of secrets) {
		if (secret && result.includes(secret)) result = result.split(secret).join('[redacted]');
	}
	return result;
}
