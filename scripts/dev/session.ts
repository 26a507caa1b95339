/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- maintainer script: runs in Node next to n8n, never inside it, never shipped */
/**
 * One dev session: the simulator, the real n8n app (provisioned and cached as the e2e suite does)
 * with this package installed from the working tree, an owner, a credential for the simulator and
 * the example workflows. `reload()` copies a new build in and restarts n8n on the same port and
 * database (n8n loads community packages only at startup). Used by `npm run dev` and the browser test.
 */
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

import { REPO_ROOT } from '../../test/e2e/lib/build-package';
import { installPackageInto } from '../../test/e2e/lib/extension';
import { freeLoopbackPort, startN8n, type N8nInstance } from '../../test/e2e/lib/n8n-instance';
import { N8nRest } from '../../test/e2e/lib/n8n-rest';
import type { N8nRuntime } from '../../test/e2e/lib/provision';
import { credentialData, CREDENTIAL_TYPE, startService } from '../../test/e2e/lib/service';
import { withTimeout } from '../../test/e2e/lib/wait';
import type { Simulator } from '../../test/simulator/types';
import { importExamples, type ExampleWorkflow } from './examples';

export const DEV_CREDENTIAL_NAME = 'Partner Referral Service (simulator)';
/** Leads the simulator starts with, so lists and "From List" searches show something. */
const SEEDED_LEADS = 5;
const STARTUP_TIMEOUT_MS = 180_000;

export interface DevLogin {
	email: string;
	password: string;
}

export interface DevSession {
	sim: Simulator;
	n8n: N8nInstance;
	rest: N8nRest;
	login: DevLogin;
	credential: { id: string; name: string };
	/** the imported examples: file in examples/, name, id in n8n */
	workflows: Array<{ file: string; name: string; id: string }>;
	/** copies the current dist/ into n8n and restarts it (same port, database and login) */
	reload(): Promise<void>;
	stop(): Promise<void>;
}

async function portIsFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** n8n's usual port when nothing else uses it, else any free loopback port. */
export async function choosePort(preferred: number | undefined): Promise<number> {
	if (preferred !== undefined && (await portIsFree(preferred))) return preferred;
	return await freeLoopbackPort();
}

/** The form example wants a partner organization and an agent: the simulator's own. */
function fillSimulatorIds(sim: Simulator): (example: ExampleWorkflow) => ExampleWorkflow {
	const organization = sim.defaultPartnerOrganization.id;
	const agent = sim.control.listAgents(organization)[0]?.id ?? '';
	return (example) => ({
		...example,
		nodes: example.nodes.map((node) => {
			if (node.parameters.operation !== 'create' || node.parameters.resource !== 'lead')
				return node;
			const byId = (value: string) => ({ __rl: true, mode: 'id', value });
			return {
				...node,
				parameters: {
					...node.parameters,
					partnerOrganizationId: byId(organization),
					agentId: byId(agent),
				},
			};
		}),
	});
}

export async function startDevSession(options: {
	runtime: N8nRuntime;
	port?: number;
	log: (line: string) => void;
}): Promise<DevSession> {
	const { runtime, log } = options;
	const sim = await startService();
	sim.control.seedLeads(SEEDED_LEADS);
	let n8n: N8nInstance | undefined;
	try {
		const root = mkdtempSync(path.join(os.tmpdir(), `partner-leads-dev-n8n-${runtime.version}-`));
		mkdirSync(path.join(root, 'user'), { recursive: true });
		mkdirSync(path.join(root, 'home'), { recursive: true });
		const reuse = {
			root,
			port: await choosePort(options.port),
			encryptionKey: randomBytes(24).toString('hex'),
		};
		const start = () =>
			startN8n({
				runtime,
				reuse,
				startupTimeoutMs: STARTUP_TIMEOUT_MS,
				watchWords: ['n8n-nodes-partner-leads', 'failed to load', 'skipping package'],
				prepareUserFolder: (userFolder) => {
					installPackageInto(userFolder, REPO_ROOT);
				},
			});
		n8n = await start();
		const rest = new N8nRest(n8n.baseUrl);
		const login = { email: 'dev@example.com', password: 'PartnerLeads-dev-1' };
		await rest.setupOwner({ ...login, firstName: 'Dev', lastName: 'User' });
		await rest.login(login.email, login.password);
		const stored = await rest.createCredential(
			DEV_CREDENTIAL_NAME,
			CREDENTIAL_TYPE,
			credentialData(sim),
		);
		const credential = { id: stored.id, name: DEV_CREDENTIAL_NAME };
		const imported = await importExamples(rest, credential, fillSimulatorIds(sim));
		log(
			`imported ${imported.length} example workflows and the credential "${DEV_CREDENTIAL_NAME}"`,
		);

		const session: DevSession = {
			sim,
			n8n,
			rest,
			login,
			credential,
			workflows: imported.map(({ example, stored }) => ({
				file: example.file,
				name: example.name,
				id: stored.id,
			})),
			reload: async () => {
				await session.n8n.stop();
				session.n8n = await start();
			},
			stop: async () => {
				await session.n8n.stop();
				await withTimeout(sim.close(), 10_000, 'closing the simulator').catch(() => undefined);
				rmSync(root, { recursive: true, force: true });
			},
		};
		return session;
	} catch (error) {
		if (n8n) await n8n.stop({ keepFiles: true });
		await withTimeout(sim.close(), 10_000, 'closing the simulator').catch(() => undefined);
		throw error;
	}
}
