/**
 * Reader for the `flatted` format n8n uses for execution data (`GET /rest/executions/:id` → `data`).
 * Every object and string lives in one top-level array; inside objects, a string value is the
 * index (as a string) of the entry it stands for. Entry 0 is the root.
 */
export function parseFlatted(text: string): unknown {
	// Strings become String objects so references (inside objects) and plain values can be told apart.
	const entries = JSON.parse(text, (_key, value: unknown) =>
		typeof value === 'string' ? new String(value) : value,
	) as unknown[];
	if (!Array.isArray(entries) || entries.length === 0)
		throw new Error('not flatted data: expected a non-empty array');
	const revived = new Set<object>();

	const resolve = (entry: unknown): unknown => {
		if (entry instanceof String) return entry.valueOf();
		if (entry !== null && typeof entry === 'object')
			return revive(entry as Record<string, unknown>);
		return entry;
	};

	const revive = (target: Record<string, unknown>): Record<string, unknown> => {
		if (revived.has(target)) return target;
		revived.add(target);
		for (const key of Object.keys(target)) {
			const value = target[key];
			if (value instanceof String) target[key] = resolve(entries[Number(value.valueOf())]);
		}
		return target;
	};

	return resolve(entries[0]);
}
