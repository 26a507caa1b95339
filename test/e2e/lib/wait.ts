/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/** Bounded waiting: every wait in the e2e suite has a deadline and says what it waited for. */

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface PollOptions {
	timeoutMs: number;
	intervalMs?: number;
	/** what is awaited, for the timeout message */
	what: string;
}

/**
 * Calls `probe` until it returns something other than undefined, or fails after `timeoutMs`.
 * A probe that throws counts as "not yet"; its last error is part of the timeout message.
 */
export async function pollUntil<T>(
	probe: () => Promise<T | undefined> | T | undefined,
	options: PollOptions,
): Promise<T> {
	const deadline = Date.now() + options.timeoutMs;
	const interval = options.intervalMs ?? 250;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
			lastError = undefined;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() >= deadline) {
			const reason = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
			throw new Error(
				`timed out after ${options.timeoutMs} ms waiting for ${options.what}${reason}`,
			);
		}
		await sleep(interval);
	}
}

/** Rejects when `promise` does not settle within `timeoutMs`. */
export async function withTimeout<T>(
	promise: Promise<T>,
	timeoutMs: number,
	what: string,
): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`timed out after ${timeoutMs} ms: ${what}`)),
			timeoutMs,
		);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}
