/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: runs in Node next to n8n, never inside it, never shipped */
/** The n8n versions the e2e suite runs against: the current 2.x line and the last 1.x. */
export const E2E_N8N_VERSIONS: readonly string[] = ['2.41.1', '1.123.81'];

/** The oldest n8n the package supports (`npm run floor` runs it), and the Node major it accepts. */
export const FLOOR_N8N_VERSION = '1.82.3';
export const FLOOR_NODE_MAJOR = '22';

/** Where scripts/e2e/provide-n8n.sh caches Node 24 and n8n (keep in sync with the script). */
export function e2eCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
	const home = env.HOME ?? '';
	return (
		env.N8N_E2E_CACHE ?? `${env.XDG_CACHE_HOME ?? `${home}/.cache`}/n8n-nodes-partner-leads/e2e`
	);
}
