/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- bench code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A throwaway certificate authority and a server certificate for 127.0.0.1, made with
 * /usr/bin/openssl in a temp folder at run time, so n8n can trust the latency proxy through
 * NODE_EXTRA_CA_CERTS without any certificate living in the repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Certificates {
	dir: string;
	/** PEM of the CA: what NODE_EXTRA_CA_CERTS points at (caPath) or `ca` for a client. */
	caPath: string;
	ca: string;
	key: string;
	cert: string;
	remove(): void;
}

const OPENSSL = '/usr/bin/openssl';

function openssl(dir: string, args: string[]): void {
	try {
		execFileSync(OPENSSL, args, {
			cwd: dir,
			stdio: ['ignore', 'ignore', 'pipe'],
			timeout: 30_000,
		});
	} catch (error) {
		const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
		throw new Error(
			`openssl ${args[0]} failed while making the bench's test certificates: ${stderr.trim() || String(error)}. ` +
				`Install openssl (apt-get install openssl) so ${OPENSSL} exists.`,
		);
	}
}

/** A new P-256 key, unencrypted (a throwaway for one run). */
const NEW_EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeCertificates(): Certificates {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-leads-bench-tls-'));
	openssl(dir, [
		'req',
		'-x509',
		...NEW_EC_KEY,
		'-keyout',
		'ca.key',
		'-out',
		'ca.pem',
		'-days',
		'2',
		'-subj',
		'/CN=partner-leads bench CA',
	]);
	openssl(dir, [
		'req',
		...NEW_EC_KEY,
		'-keyout',
		'server.key',
		'-out',
		'server.csr',
		'-subj',
		'/CN=127.0.0.1',
	]);
	fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
	openssl(dir, [
		'x509',
		'-req',
		'-in',
		'server.csr',
		'-CA',
		'ca.pem',
		'-CAkey',
		'ca.key',
		'-CAcreateserial',
		'-out',
		'server.pem',
		'-days',
		'2',
		'-extfile',
		'san.ext',
	]);
	const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
	return {
		dir,
		caPath: path.join(dir, 'ca.pem'),
		ca: read('ca.pem'),
		key: read('server.key'),
		cert: read('server.pem'),
		remove: () => fs.rmSync(dir, { recursive: true, force: true }),
	};
}
