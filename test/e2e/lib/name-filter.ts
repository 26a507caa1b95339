/** `WORD,WORD` from an environment variable: only the items whose name contains one of the words (all when unset). */
export function filterByName<T extends { name: string }>(
	items: T[],
	words: string | undefined,
): T[] {
	const wanted = (words ?? '')
		.split(',')
		.map((word) => word.trim())
		.filter(Boolean);
	if (wanted.length === 0) return items;
	return items.filter((item) => wanted.some((word) => item.name.includes(word)));
}
