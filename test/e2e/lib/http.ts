/** Minimal HTTP helpers over fetch, every request with a time limit. */

export interface HttpResponse {
	status: number;
	headers: Headers;
	text: string;
	/** parsed JSON body, or undefined when the body is not JSON */
	json: unknown;
}

export async function httpRequest(
	url: string,
	init: {
		method?: string;
		headers?: Record<string, string>;
		body?: string;
		timeoutMs?: number;
	} = {},
): Promise<HttpResponse> {
	const response = await fetch(url, {
		method: init.method ?? 'GET',
		headers: init.headers,
		body: init.body,
		redirect: 'manual',
		signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
	});
	const text = await response.text();
	let json: unknown;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: response.status, headers: response.headers, text, json };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}
