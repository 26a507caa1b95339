/** Running a Webhook-started workflow through its production URL. */
import type { HttpResponse } from './http';
import type { N8nRest } from './n8n-rest';
import { pollUntil } from './wait';

/**
 * POSTs `body` to `/webhook/<path>`. Right after activation (2.x registers webhooks a moment after
 * the activate call returns) the path may still be unknown: n8n answers 404 without running
 * anything, so the call is repeated (bounded) until n8n accepts it.
 */
export async function runThroughWebhook(
	rest: N8nRest,
	path: string,
	body: unknown,
	timeoutMs = 30_000,
): Promise<HttpResponse> {
	return await pollUntil(
		async () => {
			const response = await rest.callWebhook(path, body);
			return response.status === 404 ? undefined : response;
		},
		{
			timeoutMs,
			intervalMs: 250,
			what: `the production webhook /webhook/${path} to be registered`,
		},
	);
}
