/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * The burst case's history axis (issue 68): a trigger that has seen thousands of events before
 * it is measured. Sending them takes half an hour per point, and n8n's REST API takes no static
 * data, so the node's static data after a stream of that many deliveries, as the trigger's own
 * records build it (bench/static-data.ts, at a bulk import's 6 a second: the larger case), is
 * written into n8n's SQLite database before the workflow is published. Publishing keeps what the
 * trigger remembers (its baseline lists the portal anew).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { historyOf } from '../static-data';
import { ROOT } from '../processes';

let sqliteProvided = false;

/** Debian's sqlite3, as the e2e suite provides its packages. */
function provideSqlite(): void {
	if (sqliteProvided) return;
	execFileSync('bash', [path.join(ROOT, 'scripts/e2e/provide-debian-packages.sh'), 'sqlite3'], {
		stdio: 'inherit',
	});
	sqliteProvided = true;
}

/** Writes the node's static data after `events` deliveries; returns its bytes and its events seen. */
export function seedHistory(
	userFolder: string,
	workflowId: string,
	nodeName: string,
	events: number,
): { bytes: number; eventsSeen: string } {
	provideSqlite();
	const history = historyOf(events);
	const json = JSON.stringify({ [`node:${nodeName}`]: history });
	const folder = mkdtempSync(path.join(tmpdir(), 'bench-history-'));
	try {
		const file = path.join(folder, 'static-data.json');
		writeFileSync(file, json);
		const database = path.join(userFolder, '.n8n', 'database.sqlite');
		// n8n's ids are alphanumeric; the file's path is ours
		if (!/^[A-Za-z0-9]+$/.test(workflowId)) throw new Error(`unexpected workflow id ${workflowId}`);
		execFileSync('sqlite3', [
			'-cmd',
			'.timeout 30000',
			database,
			`UPDATE workflow_entity SET staticData = CAST(readfile('${file}') AS TEXT) WHERE id = '${workflowId}';`,
		]);
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
	return { bytes: Buffer.byteLength(json), eventsSeen: eventsSeenOf(history) };
}

/** The events seen as stored (the part of the history publishing keeps whole). */
export function eventsSeenOf(nodeData: unknown): string {
	const stored = (nodeData as { recentEvents?: { byTenMinutes?: unknown } } | undefined)
		?.recentEvents?.byTenMinutes;
	return typeof stored === 'string' ? stored : '';
}
