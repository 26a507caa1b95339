/** A number read back from static data; 0 when it is none (absent, not a number, not finite). */
export function storedNumber(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
