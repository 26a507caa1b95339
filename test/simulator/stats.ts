import type { Response } from 'express';

import type { RequestStats } from './types';

const TOKEN_ROUTE = 'POST /oauth/token';

/** Request counts per route key; statuses are recorded when the response has been sent. */
export class StatsRecorder {
	private data: RequestStats = StatsRecorder.empty();

	private static empty(): RequestStats {
		return { tokenRequests: 0, tokensIssued: 0, byRoute: {}, statusesByRoute: {} };
	}

	/** Counts the request now and its status on 'finish' (a dropped socket has no status). */
	track(route: string, res: Response): void {
		const data = this.data;
		data.byRoute[route] = (data.byRoute[route] ?? 0) + 1;
		if (route === TOKEN_ROUTE) data.tokenRequests++;
		res.once('finish', () => {
			// A reset between request and answer starts a new period; do not write into it.
			if (data !== this.data) return;
			const statuses = (data.statusesByRoute[route] ??= {});
			statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
			if (route === TOKEN_ROUTE && res.statusCode >= 200 && res.statusCode < 300)
				data.tokensIssued++;
		});
	}

	snapshot(): RequestStats {
		return structuredClone(this.data);
	}

	reset(): void {
		this.data = StatsRecorder.empty();
	}
}
