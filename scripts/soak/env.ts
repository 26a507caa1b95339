/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * Imported first by the soak's command line (before anything loads n8n-core): n8n-core
 * writes its settings under N8N_USER_FOLDER (~/.n8n otherwise), and logs unless told not to.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(tmpdir(), 'partner-leads-soak-'));
process.env.N8N_ENCRYPTION_KEY ??= 'partner-leads-soak-encryption-key';
process.env.N8N_LOG_LEVEL ??= 'silent';
