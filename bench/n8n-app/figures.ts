/**
 * Figures over several runs: min / median / max, and a verdict against a target that says
 * "within noise" when the runs disagree, instead of calling a flip of the dice met or missed.
 */

export interface Spread {
	min: number;
	median: number;
	max: number;
}

export function spreadOf(values: number[]): Spread {
	if (values.length === 0) return { min: NaN, median: NaN, max: NaN };
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	const median =
		sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

export interface Target {
	/** e.g. "≤ 0.5" */
	text: string;
	holds: (value: number) => boolean;
}

export const atMost = (limit: number): Target => ({
	text: `≤ ${limit}`,
	holds: (value) => value <= limit,
});
export const atLeast = (limit: number): Target => ({
	text: `≥ ${limit}`,
	holds: (value) => value >= limit,
});
/** "close to" a value: within ±tolerance of it. */
export const near = (value: number, tolerance: number): Target => ({
	text: `≈ ${value} (±${tolerance})`,
	holds: (actual) => Math.abs(actual - value) <= tolerance,
});

export type Verdict = 'met' | 'missed' | 'within noise' | 'no target';

/** Met when every run meets the target, missed when none does, otherwise within noise. */
export function verdictOf(values: number[], target?: Target): Verdict {
	if (!target) return 'no target';
	const meeting = values.filter((value) => target.holds(value)).length;
	if (meeting === values.length && values.length > 0) return 'met';
	if (meeting === 0) return 'missed';
	return 'within noise';
}

export function formatSpread(spread: Spread, digits = 2): string {
	const format = (value: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
	return `${format(spread.min)} / ${format(spread.median)} / ${format(spread.max)}`;
}
