import { MAX_PAGE_SIZE } from '../shared/transport/paging';
import { DEFAULT_LIST_REQUESTS_PER_MINUTE, POLL_TIMING } from './pollTiming';

/**
 * Minutes until every lead is read again (a sweep), a look a minute: each look reads the newest
 * end first, then the sweep's pages (each re-reads the last lead of the one before).
 */
export function sweepMinutes(
	leads: number,
	rate = DEFAULT_LIST_REQUESTS_PER_MINUTE,
	pageSize = MAX_PAGE_SIZE,
): number {
	const pages = Math.ceil(leads / Math.max(1, pageSize - 1)) + 1;
	return Math.max(1, Math.ceil(pages / Math.max(1, rate - POLL_TIMING.newestEndRequests)));
}

/** The sweep's period as the editor says it, for the portal sizes users have. */
export function sweepPeriods(): string {
	const hours = Math.round(sweepMinutes(500_000) / 60);
	return `about ${sweepMinutes(10_000)} minutes at 10,000 leads, ${sweepMinutes(50_000)} at 50,000 and ${hours} hours at 500,000`;
}
