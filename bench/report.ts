/** The bench's result model and its table printer. */
import type { MachineInfo } from './measure';

export interface Row {
	/** e.g. '1 create' */
	case: string;
	metric: string;
	ours: number | string;
	baseline?: number | string;
	/** ours / baseline (or as the metric defines it) */
	ratio?: number;
	/** what the target is, e.g. '>= 0.80 x bare' */
	target?: string;
	/** undefined: no target for this row */
	met?: boolean;
	note?: string;
}

export interface CaseResult {
	id: string;
	title: string;
	rows: Row[];
	/** raw samples and counts, for the JSON file */
	details: Record<string, unknown>;
	seconds: number;
	/** cores other processes on the machine kept busy during the case (Linux), a noise indicator */
	otherCores?: number;
	error?: string;
}

export interface BenchReport {
	machine: MachineInfo;
	config: Record<string, unknown>;
	totalSeconds: number;
	cases: CaseResult[];
}

export function formatNumber(value: number | string | undefined, digits?: number): string {
	if (value === undefined) return '';
	if (typeof value === 'string') return value;
	if (!Number.isFinite(value)) return 'n/a';
	if (digits !== undefined) return value.toFixed(digits);
	const magnitude = Math.abs(value);
	if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
	if (magnitude >= 100) return value.toFixed(0);
	if (magnitude >= 10) return value.toFixed(1);
	if (Number.isInteger(value)) return String(value);
	return value.toFixed(2);
}

/** How busy the rest of the machine was: the figures are only as good as that. */
function noiseLine(report: BenchReport): string {
	const measured = report.cases.filter((result) => result.otherCores !== undefined);
	if (measured.length === 0) return 'Other load on the machine: not measured';
	const parts = measured.map(
		(result) => `case ${result.id} ${(result.otherCores ?? 0).toFixed(2)}`,
	);
	const worst = Math.max(...measured.map((result) => result.otherCores ?? 0));
	const warning =
		worst > 0.25 ? ' - other processes competed for the CPU; figures are noisier than usual' : '';
	return `Other processes' CPU during the cases (cores busy on average): ${parts.join(', ')}${warning}`;
}

function status(row: Row): string {
	if (row.met === undefined) return '';
	return row.met ? 'met' : 'MISSED';
}

function pad(text: string, width: number, right: boolean): string {
	return right ? text.padStart(width) : text.padEnd(width);
}

/** A plain-text table: one line per row, columns sized to their content. */
export function formatTable(report: BenchReport): string {
	const header = ['Case', 'Metric', 'Ours', 'Baseline', 'Ratio', 'Target', 'Result'];
	const rightAligned = [false, false, true, true, true, false, false];
	const lines: string[][] = [];
	const notes: string[] = [];
	for (const result of report.cases) {
		if (result.error) {
			lines.push([
				result.id,
				`ERROR: ${result.error.split('\n')[0].slice(0, 160)}`,
				'',
				'',
				'',
				'',
				'ERROR',
			]);
			continue;
		}
		for (const row of result.rows) {
			const known = row.note ? notes.indexOf(row.note) : -1;
			const marker = row.note ? ` [${known >= 0 ? known + 1 : notes.push(row.note)}]` : '';
			lines.push([
				row.case,
				row.metric + marker,
				formatNumber(row.ours),
				formatNumber(row.baseline),
				row.ratio === undefined ? '' : formatNumber(row.ratio, 2),
				row.target ?? '',
				status(row),
			]);
		}
	}
	const widths = header.map((title, column) =>
		Math.max(title.length, ...lines.map((line) => line[column].length)),
	);
	const render = (cells: string[]) =>
		cells
			.map((cell, column) => pad(cell, widths[column], rightAligned[column]))
			.join('  ')
			.trimEnd();
	const rule = widths.map((width) => '-'.repeat(width)).join('  ');
	const { machine } = report;
	const out = [
		`Partner Leads bench - ${machine.date}`,
		`Machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node}, ${machine.platform}`,
		`Total: ${report.totalSeconds.toFixed(1)} s`,
		noiseLine(report),
		'',
		render(header),
		rule,
		...lines.map(render),
	];
	if (notes.length > 0) out.push('', ...notes.map((note, index) => `[${index + 1}] ${note}`));
	const missed = report.cases.flatMap((result) => result.rows.filter((row) => row.met === false));
	const errors = report.cases.filter((result) => result.error);
	out.push(
		'',
		`Targets: ${report.cases.flatMap((result) => result.rows).filter((row) => row.met === true).length} met, ${missed.length} missed` +
			(errors.length > 0 ? `; ${errors.length} case(s) failed with an error` : ''),
	);
	return out.join('\n');
}
