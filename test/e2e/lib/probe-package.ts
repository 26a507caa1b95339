/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: runs in Node next to n8n, never inside it, never shipped */
/**
 * A throwaway community package (one node, one credential), written straight into n8n's
 * community packages folder.
 * Loaded next to ours, it tells "n8n does not load community packages this way" apart from
 * "our package does not load".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PROBE_PACKAGE = 'n8n-nodes-e2e-probe';
export const PROBE_NODE_TYPE = `${PROBE_PACKAGE}.e2eProbe`;
export const PROBE_CREDENTIAL_TYPE = 'e2eProbeApi';

const NODE_SOURCE = `'use strict';
class E2eProbe {
	constructor() {
		this.description = {
			displayName: 'E2E Probe',
			name: 'e2eProbe',
			group: ['transform'],
			version: 1,
			description: 'Loader probe of the e2e suite',
			defaults: { name: 'E2E Probe' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: '${PROBE_CREDENTIAL_TYPE}', required: false }],
			properties: [],
		};
	}
	async execute() {
		return [this.getInputData().map((item) => ({ json: { ...item.json, probed: true } }))];
	}
}
exports.E2eProbe = E2eProbe;
`;

const CREDENTIAL_SOURCE = `'use strict';
class E2eProbeApi {
	constructor() {
		this.name = '${PROBE_CREDENTIAL_TYPE}';
		this.displayName = 'E2E Probe API';
		this.properties = [{ displayName: 'Token', name: 'token', type: 'string', default: '' }];
	}
}
exports.E2eProbeApi = E2eProbeApi;
`;

/** Writes the probe package (package.json + dist/) into `packagesFolder` and returns its folder. */
export function writeProbePackage(packagesFolder: string): string {
	const dir = path.join(packagesFolder, PROBE_PACKAGE);
	mkdirSync(path.join(dir, 'dist', 'nodes', 'E2eProbe'), { recursive: true });
	mkdirSync(path.join(dir, 'dist', 'credentials'), { recursive: true });
	writeFileSync(path.join(dir, 'dist', 'nodes', 'E2eProbe', 'E2eProbe.node.js'), NODE_SOURCE);
	writeFileSync(
		path.join(dir, 'dist', 'credentials', 'E2eProbeApi.credentials.js'),
		CREDENTIAL_SOURCE,
	);
	const manifest = {
		name: PROBE_PACKAGE,
		version: '0.0.1',
		private: true,
		n8n: {
			n8nNodesApiVersion: 1,
			nodes: ['dist/nodes/E2eProbe/E2eProbe.node.js'],
			credentials: ['dist/credentials/E2eProbeApi.credentials.js'],
		},
	};
	writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
	return dir;
}
