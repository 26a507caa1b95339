/**
 * Case 2: token and schema requests per run of case 1, as the simulator counted them.
 * The bare client fetches one token per run and never reads the schema.
 */
import { routeCount } from '../sim';
import type { CaseResult, Row } from '../report';
import type { CreateMeasurements } from './create';
import { NODE_VARIANTS } from './create';

function summary(values: number[]): string {
	const distinct = [...new Set(values)].sort((a, b) => a - b);
	return distinct.length === 1
		? `${distinct[0]} (${values.length} runs)`
		: `${distinct.join('/')} over ${values.length} runs`;
}

export function requestCountsCase(m: CreateMeasurements): Omit<CaseResult, 'seconds'> {
	// Every measured run of our node (diagnostic variants included); warm-up runs are not kept.
	const runs = m.samples.filter((sample) => NODE_VARIANTS.includes(sample.variant));
	const tokens = runs.map((run) => run.stats.tokenRequests);
	const schemas = runs.map((run) => routeCount(run.stats, 'GET /schema/lead'));
	const bareTokens = m.samples
		.filter((sample) => sample.variant === 'bare')
		.map((run) => run.stats.tokenRequests);
	const rows: Row[] = [
		{
			case: '2 requests',
			metric: 'token requests per run of case 1',
			ours: summary(tokens),
			baseline: summary(bareTokens),
			target: '= 1 every run',
			met: tokens.length > 0 && tokens.every((count) => count === 1),
		},
		{
			case: '2 requests',
			metric: 'schema requests per run of case 1',
			ours: summary(schemas),
			baseline: 'n/a',
			target: '= 1 every run',
			met: schemas.length > 0 && schemas.every((count) => count === 1),
		},
	];
	return {
		id: '2',
		title: 'Token and schema requests per run',
		rows,
		details: {
			perRun: runs.map((run) => ({
				variant: run.variant,
				parallel: run.parallel,
				tokenRequests: run.stats.tokenRequests,
				schemaRequests: routeCount(run.stats, 'GET /schema/lead'),
				createRequests: routeCount(run.stats, 'POST /leads'),
			})),
		},
	};
}
