/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * n8n-core reads its settings folder and log level when it is first loaded, and would
 * otherwise write to ~/.n8n. Import this module before anything that loads n8n-core.
 */
const folder = mkdtempSync(join(tmpdir(), 'partner-leads-demo-'));
process.env.N8N_USER_FOLDER = folder;
process.env.N8N_ENCRYPTION_KEY ||= 'partner-leads-demo-encryption-key';
process.env.N8N_LOG_LEVEL ||= 'silent';

process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
