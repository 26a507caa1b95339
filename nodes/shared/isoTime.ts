/** An ISO 8601 time in milliseconds since the epoch; undefined when it is not one. */
export function isoTimeMs(timestamp: unknown): number | undefined {
	// Date.parse alone would also accept loose forms such as "1" or "March 7".
	if (typeof timestamp !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(timestamp))
		return undefined;
	const ms = Date.parse(timestamp);
	return Number.isFinite(ms) ? ms : undefined;
}
