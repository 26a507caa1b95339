import type { IDataObject } from 'n8n-workflow';

import type { LeadVersion } from '../../shared/changes/versions';
import type { InFlightRun } from '../state/runsInFlight';
import type { WatchedRecord } from '../state/watchedLeads';

// What the queue hands the executor for one run, and what came of it (queue.ts → executor.ts).

/** 'notStarted': the run did not finish here (its delivery is answered without waiting for it). */
export type RunOutcome = 'finished' | 'notStarted';

/** One run as the queue prepared it. */
export interface RunRequest {
	run: Omit<InFlightRun, 'attempts'>;
	/** the item, as a first run gives it */
	json: IDataObject;
	/** recorded as run once the execution finished */
	version: LeadVersion;
	/** the lead's watched values, kept from the start of the run */
	watch?: WatchedRecord;
}
