/** How a look of the Polling Trigger spends time and requests (docs/design/polling.md). */

export const POLL_TIMING = {
	/** the watermark trails the sweep's start (service time), so late commits still run */
	marginMs: 60_000,
	/** a look asks for no page after this (n8n's durable cursors give a poll 45 s) */
	readingMs: 20_000,
	/** requests a look spends at most on the end of the list where new leads appear */
	newestEndRequests: 2,
	/**
	 * requests the first look of a publish spends at most: publishing waits for it (1.x's
	 * activate request, 2.x's publication status), the baseline reads on at the Poll Times
	 */
	publishingRequests: 16,
};

/** Default "List Requests per Minute": the looks keep list reads at this average. */
export const DEFAULT_LIST_REQUESTS_PER_MINUTE = 30;
