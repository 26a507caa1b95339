import type { RemoteSimulator } from '../sim';

export interface BenchConfig {
	/** leads created per run in case 1 */
	createCount: number;
	/** repetitions of the noisy measurements; the median is reported */
	runs: number;
	/** in flight for the parallel rows */
	parallel: number;
	/** list sizes of case 3 */
	getManySizes: number[];
	/** deliveries per run in case 4 */
	deliveries: number;
	/** concurrent deliveries of the load generator */
	deliveryConcurrency: number;
	/** creates in the 429 storm */
	stormCount: number;
	stormRate429: number;
	/** extra rows that explain where the time goes */
	diagnostics: boolean;
}

export interface BenchContext {
	sim: RemoteSimulator;
	config: BenchConfig;
	/** progress on stderr, so stdout carries only the table */
	log(message: string): void;
}
